import { publicApiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { endSession } from "~/web/auth.server";

// GET /api/auth/logout: the server session is destroyed (the old cookie is worthless afterwards).
const route = publicApiRoute({
  GET: async ({ request }) =>
    json({ message: "User logged out" }, { headers: { "Set-Cookie": await endSession(request) } }),
});

export const loader = route.loader;
export const action = route.action;
