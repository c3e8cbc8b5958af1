import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { serializeKid } from "~/api/serializers-kids.server";
import { listKidsOf } from "~/models/kids.server";
import { coParentsOf } from "~/models/co-parents.server";

// GET /api/kids/current: the caller's own kids, in id order.
const route = apiRoute({
  GET: async (_args, user) => {
    const kids = await listKidsOf(user.id);
    const coParents = await coParentsOf(kids.map((k) => k.id));
    return json({ kids: kids.map((kid) => serializeKid(kid, coParents)) });
  },
});

export const loader = route.loader;
export const action = route.action;
