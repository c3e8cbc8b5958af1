import type { NotificationGroup } from "~/models/notifications.server";

/** A notification (group) in the API (docs/api.md "Notifications"). */
export function serializeNotification(n: NotificationGroup) {
  return {
    id: n.id,
    kind: n.kind,
    text: n.text,
    actors: n.actors,
    daily_log: n.moment ? { id: n.moment.id, title: n.moment.title } : null,
    created_at: n.createdAt,
    unread: n.unread,
    url: n.href,
  };
}
