import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { serializeSession } from "~/api/serializers-account.server";
import { listSessions } from "~/models/sessions.server";
import { sessionToken } from "~/web/auth.server";

// GET /api/users/current/sessions: where the caller is logged in, most recently seen first.
const route = apiRoute({
  GET: async ({ request }, user) =>
    json({ sessions: (await listSessions(user.id, await sessionToken(request))).map(serializeSession) }),
});

export const loader = route.loader;
export const action = route.action;
