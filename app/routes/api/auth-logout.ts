import { publicApiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { logOutHeaders } from "~/web/auth.server";

// GET /api/auth/logout: the server session is destroyed (the old cookie is worthless afterwards).
const route = publicApiRoute({
  GET: async ({ request }) => json({ message: "User logged out" }, { headers: await logOutHeaders(request) }),
});

export const loader = route.loader;
export const action = route.action;
