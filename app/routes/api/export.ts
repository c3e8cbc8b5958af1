import { apiRoute } from "~/api/route.server";
import { apiError } from "~/api/responses.server";
import { exportResponse } from "~/web/export.server";

// GET /api/export: the caller's data as one streamed ZIP, the same as the settings page's download.
const route = apiRoute({
  GET: async ({ request }, user) => (await exportResponse(request, user.id)) ?? apiError(404, "User not found"),
});

export const loader = route.loader;
export const action = route.action;
