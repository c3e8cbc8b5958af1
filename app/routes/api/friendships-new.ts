import { apiRoute } from "~/api/route.server";

// Not built yet: every method answers the contract's JSON 404 (after the 401 check).
const route = apiRoute({});

export const loader = route.loader;
export const action = route.action;
