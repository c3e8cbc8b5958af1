import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { Link, useFetcher } from "react-router";
import type { CommentView } from "~/models/social.server";
import { Photo } from "~/components/photo";
import { FieldError, SubmissionToken, useHydrated, useSubmitOnce } from "./form-basics";
import { ListLink } from "./list-link";
import { SendIcon } from "./icons";
import { displayName } from "~/lib/names";
import { COMMENT_MAX, commentError, withSearch } from "~/forms/comment";
import type { SocialActionData } from "./moment-social";

// The comments of the like and comment block (app/components/moment-social.tsx): the new comment
// form, each comment with Edit and Delete, the inline editor, and the fields every post carries.

export function commenterName(c: Pick<CommentView, "firstName" | "lastName" | "username">): string {
  return displayName({ first_name: c.firstName, last_name: c.lastName, username: c.username });
}

/** The fields every post of the block carries. `_fetcher` tells the action to answer data. */
export function Hidden({ intent, returnTo, children }: { intent?: string; returnTo: string; children?: ReactNode }) {
  const hydrated = useHydrated();
  return (
    <>
      {intent ? <input type="hidden" name="intent" value={intent} /> : null}
      <input type="hidden" name="returnTo" value={returnTo} />
      {hydrated ? <input type="hidden" name="_fetcher" value="1" /> : null}
      {children}
    </>
  );
}

/** Client check with the shared schema, then submit through the fetcher (or block a double submit). */
function useCommentForm(initialError: string | null, busy: boolean) {
  const [error, setError] = useState<string | null>(initialError);
  const [attempted, setAttempted] = useState(Boolean(initialError));
  const textRef = useRef<HTMLTextAreaElement>(null);
  return {
    error,
    setError,
    setAttempted,
    textRef,
    onSubmit(e: FormEvent<HTMLFormElement>) {
      if (busy) {
        e.preventDefault();
        return;
      }
      const message = commentError(textRef.current?.value);
      setAttempted(true);
      setError(message);
      if (message) {
        e.preventDefault();
        textRef.current?.focus();
      }
    },
    onInput() {
      if (attempted) setError(commentError(textRef.current?.value));
    },
  };
}

export function NewComment({
  momentId,
  action,
  back,
  urlError,
}: {
  momentId: number;
  action: string;
  back: string;
  urlError: string | null;
}) {
  const hydrated = useHydrated();
  const fetcher = useFetcher<SocialActionData>();
  const busy = fetcher.state !== "idle";
  const form = useCommentForm(urlError, busy);
  const once = useSubmitOnce(busy);
  const formRef = useRef<HTMLFormElement>(null);
  const handled = useRef<unknown>(null);
  const [status, setStatus] = useState("");
  const { setError, setAttempted } = form;

  useEffect(() => {
    const result = fetcher.data;
    if (fetcher.state !== "idle" || !result || handled.current === result) return;
    handled.current = result;
    if (result.ok) {
      formRef.current?.reset();
      setAttempted(false);
      setError(null);
      setStatus("Your comment was added.");
    } else {
      setStatus("");
      setError(result.errors?.comment[0] ?? result.message ?? null);
    }
  }, [fetcher.state, fetcher.data, setError, setAttempted]);

  const textId = `comment-text-${momentId}`;
  const errorId = `comment-error-${momentId}`;
  return (
    <fetcher.Form
      ref={formRef}
      method="post"
      action={action}
      className="comment-new"
      noValidate={hydrated}
      {...once({ onSubmit: form.onSubmit })}
    >
      <Hidden intent="comment" returnTo={back}>
        <SubmissionToken />
      </Hidden>
      <label htmlFor={textId} className="visually-hidden">
        Write a comment
      </label>
      <FieldError id={errorId} errors={form.error ? [form.error] : undefined} className="comment-new__error" />
      <div className="comment-new__row">
        <textarea
          ref={form.textRef}
          id={textId}
          name="comment"
          rows={2}
          placeholder="Write a comment..."
          required
          maxLength={hydrated ? undefined : COMMENT_MAX}
          aria-invalid={form.error ? true : undefined}
          aria-describedby={form.error ? errorId : undefined}
          onInput={form.onInput}
        />
        <button type="submit" className="button button--primary comment-send" aria-disabled={busy || undefined}>
          <SendIcon />
          <span>Send</span>
          <span className="visually-hidden"> comment</span>
        </button>
      </div>
      {/* with JavaScript the page does not reload: say that it worked */}
      <p role="status" className="visually-hidden">
        {status}
      </p>
    </fetcher.Form>
  );
}

/** What a comment's view and its editor both get. */
type CommentProps = {
  comment: CommentView;
  action: string;
  back: string;
  here: string;
  urlError: string | null;
  urlHasEdit: boolean;
  onDone: () => void;
};

export function CommentItem({
  comment: c,
  action,
  back,
  here,
  editing,
  urlError,
  urlHasEdit,
  onEdit,
  onDone,
}: CommentProps & { editing: boolean; onEdit: () => void }) {
  const hydrated = useHydrated();
  const name = commenterName(c);
  const editLink = useRef<HTMLAnchorElement>(null);
  const wasEditing = useRef(editing);
  useEffect(() => {
    // back from the inline editor (Update or Cancel): focus returns to Edit
    if (wasEditing.current && !editing) editLink.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  return (
    <li id={`comment-${c.id}`} className="comment">
      <Photo photo={c.photo} alt={name} decorative sizes="40px" className="comment__avatar" />
      <div className="comment__main">
        <p className="comment__author">{name}</p>
        {editing ? (
          <EditComment
            comment={c}
            action={action}
            back={back}
            here={here}
            urlError={urlError}
            urlHasEdit={urlHasEdit}
            onDone={onDone}
          />
        ) : (
          <>
            <p className="comment__text">
              {c.comment}
              {c.edited ? <span className="comment__edited"> (edited)</span> : null}
            </p>
            {c.mine ? (
              <p className="comment__actions">
                <ListLink
                  ref={editLink}
                  to={`${withSearch(here, { editComment: c.id })}#comment-${c.id}`}
                  keepScroll
                  className="comment__action"
                  onClick={(e) => {
                    if (!hydrated) return;
                    e.preventDefault();
                    onEdit();
                  }}
                >
                  Edit
                </ListLink>
                <ListLink
                  to={withSearch(here, { confirm: "delete-comment", commentId: c.id })}
                  keepScroll
                  className="comment__action comment__action--danger"
                >
                  Delete
                </ListLink>
              </p>
            ) : null}
          </>
        )}
      </div>
    </li>
  );
}

function EditComment({ comment: c, action, back, here, urlError, urlHasEdit, onDone }: CommentProps) {
  const hydrated = useHydrated();
  const fetcher = useFetcher<SocialActionData>();
  const busy = fetcher.state !== "idle";
  const form = useCommentForm(urlError, busy);
  const once = useSubmitOnce(busy);
  const handled = useRef<unknown>(null);
  const { setError } = form;

  useEffect(() => {
    const result = fetcher.data;
    if (fetcher.state !== "idle" || !result || handled.current === result) return;
    handled.current = result;
    if (result.ok) onDone();
    else setError(result.errors?.comment[0] ?? result.message ?? null);
  }, [fetcher.state, fetcher.data, setError, onDone]);

  const textId = `comment-edit-${c.id}`;
  const errorId = `comment-edit-error-${c.id}`;
  return (
    <fetcher.Form
      method="post"
      action={action}
      className="comment-edit"
      noValidate={hydrated}
      {...once({ onSubmit: form.onSubmit })}
    >
      <Hidden intent="edit-comment" returnTo={back}>
        <input type="hidden" name="commentId" value={c.id} />
      </Hidden>
      <label htmlFor={textId} className="visually-hidden">
        Edit your comment
      </label>
      <FieldError id={errorId} errors={form.error ? [form.error] : undefined} />
      <textarea
        ref={form.textRef}
        id={textId}
        name="comment"
        rows={3}
        defaultValue={c.comment}
        required
        maxLength={hydrated ? undefined : COMMENT_MAX}
        autoFocus={hydrated}
        aria-invalid={form.error ? true : undefined}
        aria-describedby={form.error ? errorId : undefined}
        onInput={form.onInput}
      />
      <div className="button-row">
        <button type="submit" className="button button--small button--primary" aria-disabled={busy || undefined}>
          Update
        </button>
        <Link
          to={`${here}#comment-${c.id}`}
          preventScrollReset
          className="button button--small button--secondary"
          onClick={(e) => {
            if (!hydrated) return;
            // the no-JS edit URL (?editComment=…) is left by following the link; otherwise stay put
            if (!urlHasEdit) e.preventDefault();
            onDone();
          }}
        >
          Cancel
        </Link>
      </div>
    </fetcher.Form>
  );
}
