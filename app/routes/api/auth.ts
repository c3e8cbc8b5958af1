import { publicApiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { serializeUser } from "~/api/serializers.server";

// GET /api/auth/ : restore the session.
const route = publicApiRoute({
  GET: async (_args, user) => (user ? json(serializeUser(user, true)) : apiError(401, "Unauthorized")),
});

export const loader = route.loader;
export const action = route.action;
