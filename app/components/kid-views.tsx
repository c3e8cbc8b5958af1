import { href, type ShouldRevalidateFunctionArgs } from "react-router";
import { useState } from "react";
import { ConfirmDialog } from "./modal";
import { ListLink } from "./list-link";

// The kid and moment pieces the pages that show kids and moments need (My Kids, a kid's moments,
// a moment): no form code, so those pages' scripts stay small (docs/decisions/0035-slow-networks.md).
// The forms' pieces are in app/components/kids.tsx. Styles: app/styles/kids.css.

/**
 * A kid's age with its tooltip ("Born on …"). The age is a real button, so the tooltip opens on
 * keyboard focus as well as on hover, and screen readers hear it through aria-describedby. Escape
 * hides it (WCAG 1.4.13) until the pointer or focus leaves. Works without JavaScript (CSS only).
 */
export function KidAge({ id, age, born, birthDate }: { id: string; age: string; born: string; birthDate: string }) {
  const [dismissed, setDismissed] = useState(false);
  if (!age) return null;
  const tipId = `${id}-tip`;
  return (
    <span
      className={"age-tip" + (dismissed ? " age-tip--dismissed" : "")}
      onMouseLeave={() => setDismissed(false)}
      onBlur={() => setDismissed(false)}
    >
      <button
        type="button"
        className="age-tip__trigger"
        aria-describedby={tipId}
        onKeyDown={(e) => {
          if (e.key === "Escape") setDismissed(true);
        }}
      >
        <span className="visually-hidden">Age: </span>
        {age}
      </button>
      <span role="tooltip" id={tipId} className="age-tip__bubble">
        Born on <time dateTime={birthDate}>{born}</time>
      </span>
    </span>
  );
}

/**
 * The owner's Update and Delete for one moment (Delete opens the confirm dialog by URL).
 * `replace`: Delete replaces the history entry (the moment's own page: see DeleteMomentDialog).
 */
export function MomentOwnerActions({
  momentId,
  title,
  deleteTo,
  replace,
}: {
  momentId: number;
  title: string;
  deleteTo: string;
  replace?: boolean;
}) {
  return (
    <div className="button-row moment__actions">
      <ListLink
        to={href("/dailyLogs/:momentId/update", { momentId: String(momentId) })}
        className="button button--secondary button--small"
      >
        Update<span className="visually-hidden"> {title}</span>
      </ListLink>
      <ListLink to={deleteTo} keepScroll replace={replace} className="button button--danger button--small">
        Delete<span className="visually-hidden"> {title}</span>
      </ListLink>
    </div>
  );
}

/**
 * The owner's Update and Delete on a list of moments, in one "Manage" disclosure per moment (a
 * `<details>`: it opens without JavaScript too). The pair stays out of the way of the moment and
 * costs a third of the markup the two buttons did (docs/decisions/0037-kid-page-cost.md).
 */
export function MomentManage({ momentId, title, deleteTo }: { momentId: number; title: string; deleteTo: string }) {
  return (
    <details className="moment__manage">
      <summary className="button button--secondary button--small">
        Manage<span className="visually-hidden">{` ${title}`}</span>
      </summary>
      <ListLink to={href("/dailyLogs/:momentId/update", { momentId: String(momentId) })}>Update</ListLink>
      <ListLink to={deleteTo} keepScroll>
        Delete
      </ListLink>
    </details>
  );
}

/**
 * "Confirm Delete": the Yes button posts `intent=delete-moment` to `action`. On the moment's own
 * page (`replace`) the dialog was opened in place of the page's history entry and the answer
 * replaces it too: after the deletion, Back leads to where the visitor was before the moment,
 * never to the deleted moment's "Page not found".
 */
export function DeleteMomentDialog({
  momentId,
  action,
  closeTo,
  replace,
}: {
  momentId: number;
  action: string;
  closeTo: string;
  replace?: boolean;
}) {
  return (
    <ConfirmDialog
      title="Confirm Delete"
      question="Are you sure you want to delete this moment?"
      yesLabel="Yes (Remove Daily Log)"
      noLabel="No (Keep Daily Log)"
      closeTo={closeTo}
      action={action}
      intent="delete-moment"
      hidden={{ momentId: String(momentId) }}
      replace={replace}
    />
  );
}

/** The search string without the confirm dialog's parameters (where "close" and "back" go). */
export function withoutConfirm(search: string): string {
  const params = new URLSearchParams(search);
  for (const name of ["confirm", "kidId", "momentId"]) params.delete(name);
  const q = params.toString();
  return q ? `?${q}` : "";
}

/** Loaders re-run on every navigation; opening or closing a confirm dialog changes nothing on the server. */
export function onlyConfirmChanged(currentUrl: URL, nextUrl: URL): boolean {
  return (
    currentUrl.pathname === nextUrl.pathname && withoutConfirm(currentUrl.search) === withoutConfirm(nextUrl.search)
  );
}

/** A page's `shouldRevalidate` when a confirm step is all that opens or closes on it: no reload then. */
export function confirmStepKeepsData({
  currentUrl,
  nextUrl,
  formMethod,
  defaultShouldRevalidate,
}: ShouldRevalidateFunctionArgs): boolean {
  if (!formMethod && onlyConfirmChanged(currentUrl, nextUrl)) return false;
  return defaultShouldRevalidate;
}
