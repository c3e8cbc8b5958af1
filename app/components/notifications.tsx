import { Link } from "react-router";
import type { NotificationGroup } from "~/models/notifications.server";

// The header's "Notifications" link (a plain link with the unread count: no JavaScript needed) and
// the list of app/routes/notifications.tsx.

export function NotificationsLink({ unread }: { unread: number }) {
  return (
    <Link to="/notifications" className="header-notifications">
      Notifications
      {unread > 0 ? (
        <span className="header-notifications__count">
          {" "}
          {unread}
          <span className="visually-hidden"> unread</span>
        </span>
      ) : null}
    </Link>
  );
}

const when = (iso: string) =>
  new Date(iso).toLocaleString("en-GB", {
    day: "numeric",
    month: "long",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: "UTC",
  });

export function NotificationList({ notifications }: { notifications: NotificationGroup[] }) {
  if (!notifications.length) return <p className="empty">No notifications yet</p>;
  return (
    <ul className="notification-list">
      {notifications.map((n) => (
        <li key={n.id} className={n.unread ? "card notification notification--unread" : "card notification"}>
          {n.unread ? (
            <span className="notification__new">
              New<span className="visually-hidden">:</span>
            </span>
          ) : null}
          <Link to={n.href}>{n.text}</Link>
          <span className="notification__when">{when(n.createdAt)} UTC</span>
        </li>
      ))}
    </ul>
  );
}
