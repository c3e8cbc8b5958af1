import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { endSessionByHandle } from "~/models/sessions.server";

// DELETE /api/users/current/sessions/{id}: ends one of the caller's sessions (its `id` from the list).
const route = apiRoute({
  DELETE: async ({ params }, user) => {
    const ended = await endSessionByHandle(user.id, params.id ?? "");
    return ended.ok ? json({ message: "The session is signed out" }) : apiRefusal(ended);
  },
});

export const loader = route.loader;
export const action = route.action;
