import { apiRoute } from "~/api/route.server";

// Any /api path not listed in app/routes.ts: JSON 404, never the HTML not-found page.
const route = apiRoute({});

export const loader = route.loader;
export const action = route.action;
