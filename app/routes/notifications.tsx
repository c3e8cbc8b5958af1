import { Link } from "react-router";
import type { Route } from "./+types/notifications";
import { requireUser } from "~/web/auth.server";
import { listNotifications, markNotificationsRead } from "~/models/notifications.server";
import { NotificationList } from "~/components/notifications";

// /notifications (docs/spec.md "Notifications"): the signed-in user's notifications, grouped,
// newest first; the ones shown are marked read as they are seen (the next page's header count
// drops). Only what the reader may still see is listed (the model asks the access module).

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const { notifications, unread } = await listNotifications(user.id);
  if (notifications.length) await markNotificationsRead(user.id, Math.max(...notifications.map((n) => n.id)));
  return { notifications, unread };
}

export default function NotificationsPage({ loaderData }: Route.ComponentProps) {
  return (
    <div className="page narrow">
      <title>Notifications – Sweet Moments</title>
      <h1>Notifications</h1>
      {loaderData.unread ? <p role="status">{loaderData.unread === 1 ? "1 new notification" : `${loaderData.unread} new notifications`}</p> : null}
      <NotificationList notifications={loaderData.notifications} />
      <p>
        <Link to="/settings/email">Email settings</Link>: a daily or weekly digest instead of checking here.
      </p>
    </div>
  );
}
