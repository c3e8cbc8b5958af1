import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { serializeKid } from "~/api/serializers-kids.server";
import { listKidsOf } from "~/models/kids.server";

// GET /api/kids/current: the caller's own kids, in id order.
const route = apiRoute({
  GET: async (_args, user) => json({ kids: (await listKidsOf(user.id)).map(serializeKid) }),
});

export const loader = route.loader;
export const action = route.action;
