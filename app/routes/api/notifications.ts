import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { serializeNotification } from "~/api/serializers-notifications.server";
import { listNotifications } from "~/models/notifications.server";

// GET /api/notifications: {notifications: [Notification], unread}; reading does not mark them read.
const route = apiRoute({
  GET: async (_args, user) => {
    const { notifications, unread } = await listNotifications(user.id);
    return json({ notifications: notifications.map(serializeNotification), unread });
  },
});

export const loader = route.loader;
export const action = route.action;
