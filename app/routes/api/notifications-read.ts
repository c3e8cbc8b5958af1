import { apiRoute } from "~/api/route.server";
import { readFields } from "~/api/read-body.server";
import { apiFieldErrors, json } from "~/api/responses.server";
import { parseUserId } from "~/models/friendships.server";
import { markNotificationsRead, unreadNotifications } from "~/models/notifications.server";

// POST /api/notifications/read {up_to_id?}: marks the caller's notifications read (all, or those
// up to that id, the newest a client showed); 200 {unread}.
const route = apiRoute({
  POST: async ({ request }, user) => {
    const body = await readFields(request);
    let upTo: number | undefined;
    if (body.up_to_id !== undefined && body.up_to_id !== null && body.up_to_id !== "") {
      const id = parseUserId(body.up_to_id);
      if (id === null) return apiFieldErrors({ up_to_id: ["up_to_id must be a notification id"] });
      upTo = id;
    }
    await markNotificationsRead(user.id, upTo);
    return json({ unread: await unreadNotifications(user.id) });
  },
});

export const loader = route.loader;
export const action = route.action;
