import { useEffect } from "react";
import { data, Form, Link, redirect, useFetcher, type ShouldRevalidateFunctionArgs } from "react-router";
import type { Route } from "./+types/notifications";
import { requireUser } from "~/web/auth.server";
import { parseId } from "~/lib/request.server";
import { listNotifications, markNotificationsRead } from "~/models/notifications.server";
import { NotificationList } from "~/components/notifications";
import { SubmitButton } from "~/components/forms";

// /notifications (docs/spec.md "Notifications"): the signed-in user's notifications, grouped,
// newest first. Opening the page changes nothing (a GET may come from another site's link); the
// ones shown are marked read by a POST: the "Mark all as read" form, which the page also sends by
// itself once shown when JavaScript runs. Only what the reader may still see is listed (the model
// asks the access module).

export const MARK_READ = "mark-read";

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const { notifications, unread } = await listNotifications(user.id);
  // the newest one shown: marking stops there, so one that arrives meanwhile stays new
  const upTo = notifications.length ? Math.max(...notifications.map((n) => n.id)) : null;
  return { notifications, unread, upTo };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  const form = await request.formData();
  const upTo = parseId(typeof form.get("upTo") === "string" ? String(form.get("upTo")) : undefined);
  if (form.get("intent") !== MARK_READ || upTo === null)
    throw data("That request could not be handled.", { status: 400 });
  await markNotificationsRead(user.id, upTo);
  // the page's own marking (JavaScript) stays on the page; the form goes back to it (post, redirect, get)
  return form.get("auto") ? { marked: true } : redirect("/notifications", 303);
}

// the page's own marking (a fetcher) leaves the list as it was shown, "New" marks included; the
// header's count (the root's loader) drops at once
export function shouldRevalidate({ formData, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return formData?.get("intent") === MARK_READ && formData.get("auto") ? false : defaultShouldRevalidate;
}

export default function NotificationsPage({ loaderData }: Route.ComponentProps) {
  const { notifications, unread, upTo } = loaderData;
  const fetcher = useFetcher();
  const marked = fetcher.state === "idle" && fetcher.data !== undefined;
  useEffect(() => {
    if (unread && upTo !== null)
      void fetcher.submit(
        { intent: MARK_READ, upTo: String(upTo), auto: "1" },
        { method: "post", action: "/notifications" },
      );
    // once per list shown (the fetcher itself is a new object on every render)
  }, [upTo, unread]);
  return (
    <div className="page narrow">
      <title>Notifications – Sweet Moments</title>
      <h1>Notifications</h1>
      {unread ? <p role="status">{unread === 1 ? "1 new notification" : `${unread} new notifications`}</p> : null}
      {unread && upTo !== null && !marked ? (
        <Form method="post">
          <input type="hidden" name="intent" value={MARK_READ} />
          <input type="hidden" name="upTo" value={upTo} />
          <SubmitButton className="button">Mark all as read</SubmitButton>
        </Form>
      ) : null}
      <NotificationList notifications={notifications} />
      <p>
        <Link to="/settings/email">Email settings</Link>: get these by email too, in a digest or right away.
      </p>
    </div>
  );
}
