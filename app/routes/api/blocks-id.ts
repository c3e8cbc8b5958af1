import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { readFields } from "~/api/read-body.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { BLOCK_MESSAGES, showBlockedComments, unblockUser } from "~/models/blocks.server";

// PUT /api/blocks/{userId} {show_comments: boolean}: show or hide the blocked user's past comments.
// DELETE /api/blocks/{userId}: unblock (no friendship comes back). 404 when not blocked.
const route = apiRoute({
  PUT: async ({ request, params }, user) => {
    const id = parseId(params.userId);
    if (id === null) return apiError(404, BLOCK_MESSAGES.notBlocked);
    const fields = await readFields(request).catch(() => ({}) as Record<string, unknown>);
    const show = fields.show_comments;
    if (typeof show !== "boolean" && show !== "true" && show !== "false")
      return apiError(400, "show_comments must be true or false");
    const result = await showBlockedComments(user.id, id, show === true || show === "true");
    if (!result.ok) return apiRefusal(result);
    return json({ blocked_id: result.blockedId, show_comments: show === true || show === "true" });
  },
  DELETE: async ({ params }, user) => {
    const id = parseId(params.userId);
    if (id === null) return apiError(404, BLOCK_MESSAGES.notBlocked);
    const result = await unblockUser(user.id, id);
    if (!result.ok) return apiRefusal(result);
    return json({ message: "User unblocked" });
  },
});

export const loader = route.loader;
export const action = route.action;
