import { apiRoute } from "~/api/route.server";
import { apiRefusal } from "~/api/refusal.server";
import { readFields } from "~/api/read-body.server";
import { json } from "~/api/responses.server";
import { imageUrl } from "~/api/serializers.server";
import { blockUser, listBlocked } from "~/models/blocks.server";

// GET /api/blocks: {blocked: [{id, username, first_name, last_name, user_image_url, show_comments}]}.
// POST /api/blocks {user_id}: 201 {blocked_id}; ends any friendship and co-parent role between the two.
const route = apiRoute({
  GET: async (_args, user) =>
    json({
      blocked: (await listBlocked(user.id)).map((b) => ({
        id: b.id,
        username: b.username,
        first_name: b.first_name,
        last_name: b.last_name,
        user_image_url: imageUrl(b.photo),
        show_comments: b.showComments,
      })),
    }),
  POST: async ({ request }, user) => {
    const fields = await readFields(request);
    const result = await blockUser(user.id, fields.user_id);
    if (!result.ok) return apiRefusal(result);
    return json({ blocked_id: result.blockedId }, { status: 201 });
  },
});

export const loader = route.loader;
export const action = route.action;
