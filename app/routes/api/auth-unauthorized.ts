import { publicApiRoute } from "~/api/route.server";
import { apiError } from "~/api/responses.server";

const route = publicApiRoute({
  GET: async () => apiError(401, "Unauthorized"),
});

export const loader = route.loader;
export const action = route.action;
