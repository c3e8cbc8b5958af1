import { useEffect, useId, useRef, type ReactNode } from "react";
import { Form, Link, useNavigate, useNavigation } from "react-router";
import { useSubmitOnce } from "./form-basics";

/**
 * A modal with a URL. The server renders it open (so the link that opens it works with JavaScript
 * off); with JavaScript it becomes a real modal <dialog>: focus moves in and returns to what opened
 * it, Escape and a click on the background close it, and `onClose` runs.
 *
 * First focus: the element marked `data-autofocus` (React writes `autoFocus` to the server's HTML
 * only, so a client render needs the data attribute: e.g. a confirm dialog's safe "No"), the error
 * summary, the first field, then the first control.
 */
export function Modal({
  title,
  closeTo,
  onClose,
  children,
  describedBy,
}: {
  title: string;
  /** Where "close" goes: the same page without the modal's search parameter. */
  closeTo: string;
  onClose?: () => void;
  children: ReactNode;
  describedBy?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const navigate = useNavigate();
  const opener = useRef<Element | null>(null);
  const closing = useRef(false);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    // focus already inside (a click or a failed submit between hydration and this effect) stays there
    const inside = dialog.contains(document.activeElement) ? (document.activeElement as HTMLElement) : null;
    opener.current = inside ? null : document.activeElement;
    if (dialog.open) dialog.close();
    dialog.showModal();
    if (inside) {
      inside.focus();
      return () => returnFocus(opener.current);
    }
    // the error summary or an explicit autofocus first, then the first field, then the first control
    const focusTarget =
      dialog.querySelector<HTMLElement>(".modal__content [data-autofocus], .modal__content [autofocus]") ??
      dialog.querySelector<HTMLElement>("input:not([type=hidden]), select, textarea") ??
      dialog.querySelector<HTMLElement>(
        ".modal__content > :not(.modal__header) button, .modal__content > :not(.modal__header) a[href]",
      );
    focusTarget?.focus();
    return () => returnFocus(opener.current);
  }, []);

  function close() {
    if (closing.current) return;
    closing.current = true;
    onClose?.();
    navigate(closeTo, { preventScrollReset: true, replace: false });
  }

  return (
    <div className="modal-backdrop">
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the background click's keyboard twin is Escape (onCancel) */}
      <dialog
        ref={ref}
        open
        className="modal"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        onCancel={(e) => {
          e.preventDefault();
          close();
        }}
        onClick={(e) => {
          // a click on the dialog element itself (not its content) is a click on the background
          if (e.target === ref.current) close();
        }}
      >
        <div className="modal__content">
          <div className="modal__header">
            <h2 id={titleId} className="modal__title">
              {title}
            </h2>
            <Link
              to={closeTo}
              preventScrollReset
              className="modal__close"
              aria-label="Close"
              onClick={(e) => {
                e.preventDefault();
                close();
              }}
            >
              <span aria-hidden="true">×</span>
            </Link>
          </div>
          {children}
        </div>
      </dialog>
    </div>
  );
}

/** Where focus goes when a modal closes (the `data-modal-home` element: the profile menu's button). */
export const MODAL_HOME_ATTRIBUTE = "data-modal-home";

/**
 * Focus back to what opened the modal. A link in a menu that has closed meanwhile (the profile
 * menu closes when one of its links is followed) cannot take focus: its menu's button does. With
 * no opener at all (focus had dropped to <body>, or the page opened with the modal) the profile
 * menu's button, where the modals are opened from.
 */
function returnFocus(opener: Element | null) {
  let target: HTMLElement | null = null;
  if (opener instanceof HTMLElement && opener.isConnected && opener !== document.body) {
    const closedMenu = opener.closest("details:not([open])");
    target = closedMenu ? closedMenu.querySelector<HTMLElement>(":scope > summary") : opener;
  }
  target ??= document.querySelector<HTMLElement>(`[${MODAL_HOME_ATTRIBUTE}]`);
  target?.focus();
}

/** The current URL with one search parameter set or removed, for modal links. */
export function withParam(
  pathname: string,
  search: string,
  name: string,
  value: string | null,
  extra?: Record<string, string | null>,
): string {
  const params = new URLSearchParams(search);
  const all: Record<string, string | null> = { [name]: value, ...extra };
  for (const [k, v] of Object.entries(all)) {
    if (v === null) params.delete(k);
    else params.set(k, v);
  }
  const q = params.toString();
  return pathname + (q ? `?${q}` : "");
}

/**
 * A confirm dialog (Confirm Remove, Confirm Delete…): the "yes" button posts a form. Focus starts
 * on the safe "no" (so Enter never deletes at once), with and without JavaScript. `replace`: the
 * answer replaces the dialog's history entry (e.g. a deleted moment's page: Back must not lead there).
 */
export function ConfirmDialog({
  title,
  question,
  closeTo,
  yesLabel,
  noLabel,
  action,
  intent,
  hidden,
  pending,
  replace,
}: {
  title: string;
  question: string;
  closeTo: string;
  yesLabel: string;
  noLabel: string;
  action: string;
  intent?: string;
  hidden?: Record<string, string>;
  pending?: boolean;
  replace?: boolean;
}) {
  const questionId = useId();
  const navigation = useNavigation();
  const once = useSubmitOnce(navigation.state !== "idle");
  return (
    <Modal title={title} closeTo={closeTo} describedBy={questionId}>
      <p id={questionId}>{question}</p>
      <Form method="post" action={action} className="button-row" replace={replace} {...once()}>
        {intent ? <input type="hidden" name="intent" value={intent} /> : null}
        {Object.entries(hidden ?? {}).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <button type="submit" className="button button--danger" disabled={pending}>
          {yesLabel}
        </button>
        <Link to={closeTo} preventScrollReset className="button button--secondary" autoFocus data-autofocus="">
          {noLabel}
        </Link>
      </Form>
    </Modal>
  );
}
