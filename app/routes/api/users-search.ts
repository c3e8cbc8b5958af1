import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { serializeSearchHit } from "~/api/serializers-friends.server";
import { searchUsers } from "~/models/user-search.server";

// GET /api/users/search?query=q: {users_exist: [hit]}; no hit {message}; blank 400 (C).
const route = apiRoute({
  GET: async ({ request }, user) => {
    const hits = await searchUsers(new URL(request.url).searchParams.get("query"), user.id);
    if (hits === null) return apiError(400, "No search term provided");
    if (!hits.length) return json({ message: "No users found" });
    return json({ users_exist: hits.map(serializeSearchHit) });
  },
});

export const loader = route.loader;
export const action = route.action;
