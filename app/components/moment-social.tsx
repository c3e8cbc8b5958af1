// The like and comment block under a moment (kid's moments page, moment page).
//
// Everything works without JavaScript: the forms post to /dailyLogs/<id>/social and come back to
// `returnTo` at the moment (#moment-<id>) or the comment (#comment-<id>); the comment section is a
// <details>; editing and the delete confirmation have URLs (?editComment=<id>,
// ?confirm=delete-comment&commentId=<id>) that the server renders. With JavaScript the forms post
// through fetchers (no navigation): the like count changes at once and settles to the server's
// answer, editing is inline, the textarea clears after a successful add.
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { Link, useFetcher, useLocation, useNavigation, useSearchParams, href } from "react-router";
import type { CommentView, MomentSocialData } from "~/models/social.server";
import { Photo } from "~/components/photo";
import { ConfirmDialog } from "./modal";
import { FieldError, SubmissionToken, useHydrated, useSubmitOnce } from "./form-basics";
import { ListLink } from "./list-link";
import { HeartIcon, SendIcon } from "./icons";
import { useRootData } from "./root-data";
import { displayName } from "~/lib/names";
import { cleanSocialPath, COMMENT_MAX, commentError, commentErrorMessage, withSearch } from "~/forms/comment";
import "~/styles/social.css";

/** What the block's action answers a fetcher (plain form posts get a redirect instead). */
export type SocialActionData =
  | { ok: true; intent: string; commentId?: number }
  | { ok: false; intent: string; message?: string; errors?: { comment: string[] } };

export const likesLabel = (n: number) => `${n} ${n === 1 ? "like" : "likes"}`;
export const commentsLabel = (n: number) => `${n} ${n === 1 ? "comment" : "comments"}`;

export function commenterName(c: Pick<CommentView, "firstName" | "lastName" | "username">): string {
  return displayName({ first_name: c.firstName, last_name: c.lastName, username: c.username });
}

export function MomentSocial({
  momentId,
  social,
  returnTo,
}: {
  momentId: number;
  social: MomentSocialData;
  /** Path (with search) of the page the block is on: non-JS form posts come back here, at #moment-{id}. */
  returnTo: string;
}) {
  const [params] = useSearchParams();
  const location = useLocation();
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const me = useRootData()?.user?.username ?? null;
  const action = href("/dailyLogs/:momentId/social", { momentId: String(momentId) });
  const back = cleanSocialPath(returnTo);
  const here = cleanSocialPath(location.pathname + location.search);

  // ---- like: optimistic while the fetcher runs, the server's answer afterwards
  const like = useFetcher<SocialActionData>();
  const pendingIntent = like.formData?.get("intent");
  const liked = pendingIntent === "like" ? true : pendingIntent === "unlike" ? false : social.likedByMe;
  const likeBusy = like.state !== "idle";
  const likeOnce = useSubmitOnce(likeBusy);
  const delta = liked === social.likedByMe ? 0 : liked ? 1 : -1;
  const likeCount = Math.max(0, social.likeCount + delta);
  const likers =
    delta === 0 || !me
      ? social.likers
      : delta > 0
        ? [...social.likers.filter((u) => u !== me), me]
        : social.likers.filter((u) => u !== me);

  // ---- URL state (the no-JS way to edit, confirm and see errors)
  const urlEditId = Number(params.get("editComment")) || null;
  const urlEditing = urlEditId && social.comments.some((c) => c.id === urlEditId && c.mine) ? urlEditId : null;
  const urlError =
    params.get("commentError") === String(momentId) ? commentErrorMessage(params.get("commentReason")) : null;
  const confirmId = params.get("confirm") === "delete-comment" ? Number(params.get("commentId")) : null;
  const confirming = confirmId ? social.comments.find((c) => c.id === confirmId && c.mine) : undefined;

  // ---- inline editing with JavaScript (overrides the URL once used)
  const [localEdit, setLocalEdit] = useState<{ id: number | null } | null>(null);
  const editingId = localEdit ? localEdit.id : urlEditing;

  const onMomentPage =
    back.split("?")[0]!.toLowerCase() === href("/dailyLogs/:momentId", { momentId: String(momentId) }).toLowerCase();
  const startOpen =
    onMomentPage || params.get("showComments") === String(momentId) || Boolean(urlEditing || urlError || confirming);
  const [open, setOpen] = useState(startOpen);
  useEffect(() => {
    if (startOpen) setOpen(true);
  }, [startOpen]);

  const shown = social.comments.length;
  const total = Math.max(social.commentCount, shown);

  return (
    <div className="moment-social" data-moment={momentId}>
      <p className="social-counts">
        <LikeCount id={momentId} count={likeCount} likers={likers} />
        <span className="social-counts__sep" aria-hidden="true">
          ·
        </span>
        <span className="social-count">{commentsLabel(total)}</span>
      </p>

      <like.Form method="post" action={action} className="like-form" {...likeOnce()}>
        <Hidden intent={liked ? "unlike" : "like"} returnTo={back} hydrated={hydrated} />
        <button
          type="submit"
          className={"button button--small like-button" + (liked ? " like-button--on" : "")}
          aria-pressed={liked}
          aria-disabled={likeBusy || undefined}
        >
          <HeartIcon filled={liked} />
          Like
        </button>
      </like.Form>

      {!open && !hydrated ? (
        // closed, before the page's scripts run (or without JavaScript): a link that asks for the
        // section by URL, so a list does not carry every moment's comments and form
        // (docs/decisions/0037-kid-page-cost.md); once hydrated it becomes the <details> below
        <div className="social-comments">
          <a
            className="button button--small button--secondary comment-toggle"
            href={`${withSearch(here, { showComments: momentId })}#comments-${momentId}`}
          >
            Comment
          </a>
        </div>
      ) : (
        <details className="social-comments" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary className="button button--small button--secondary comment-toggle">Comment</summary>
          {open ? (
            <div className="social-comments__body" id={`comments-${momentId}`}>
              <NewComment
                momentId={momentId}
                action={action}
                back={back}
                hydrated={hydrated}
                urlError={urlEditing ? null : urlError}
              />
              {shown ? (
                <ul className="comment-list" aria-label="Comments">
                  {social.comments.map((c) => (
                    <CommentItem
                      key={c.id}
                      comment={c}
                      action={action}
                      back={back}
                      here={here}
                      hydrated={hydrated}
                      editing={editingId === c.id}
                      urlError={urlEditing === c.id && !localEdit ? urlError : null}
                      urlHasEdit={urlEditId !== null}
                      onEdit={() => setLocalEdit({ id: c.id })}
                      onDone={() => setLocalEdit({ id: null })}
                    />
                  ))}
                </ul>
              ) : null}
              {total > shown ? (
                <p className="comment-more">
                  <ListLink to={`${href("/dailyLogs/:momentId", { momentId: String(momentId) })}#comments-${momentId}`}>
                    View all {commentsLabel(total)}
                  </ListLink>
                </p>
              ) : null}
            </div>
          ) : null}
        </details>
      )}

      {confirming ? (
        <ConfirmDialog
          title="Confirm Delete Comment"
          question="Are you sure you want to delete this comment?"
          yesLabel="Yes (Delete Comment)"
          noLabel="No (Keep Comment)"
          closeTo={`${here}#comment-${confirming.id}`}
          action={action}
          intent="delete-comment"
          hidden={{ commentId: String(confirming.id), returnTo: back }}
          pending={navigation.state === "submitting" && navigation.formAction === action}
        />
      ) : null}
    </div>
  );
}

/** The fields every post of the block carries. `_fetcher` tells the action to answer data. */
function Hidden({
  intent,
  returnTo,
  hydrated,
  children,
}: {
  intent: string;
  returnTo: string;
  hydrated: boolean;
  children?: ReactNode;
}) {
  return (
    <>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="returnTo" value={returnTo} />
      {hydrated ? <input type="hidden" name="_fetcher" value="1" /> : null}
      {children}
    </>
  );
}

/**
 * "3 likes": a button that shows who liked on hover and on keyboard focus (a CSS tooltip, so it
 * works without JavaScript), and tells screen readers through aria-describedby. Escape hides it.
 */
function LikeCount({ id, count, likers }: { id: number; count: number; likers: string[] }) {
  const [dismissed, setDismissed] = useState(false);
  if (count === 0 || likers.length === 0) return <span className="social-count">{likesLabel(count)}</span>;
  const tipId = `likers-${id}`;
  return (
    <span className={"likers" + (dismissed ? " likers--dismissed" : "")} onMouseLeave={() => setDismissed(false)}>
      <button
        type="button"
        className="likers__button"
        aria-describedby={tipId}
        onKeyDown={(e) => {
          if (e.key === "Escape") setDismissed(true);
        }}
        onBlur={() => setDismissed(false)}
      >
        {likesLabel(count)}
      </button>
      <span role="tooltip" id={tipId} className="likers__tip">
        Liked by {likers.join(", ")}
      </span>
    </span>
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

function NewComment({
  momentId,
  action,
  back,
  hydrated,
  urlError,
}: {
  momentId: number;
  action: string;
  back: string;
  hydrated: boolean;
  urlError: string | null;
}) {
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
      <Hidden intent="comment" returnTo={back} hydrated={hydrated}>
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
  hydrated: boolean;
  urlError: string | null;
  urlHasEdit: boolean;
  onDone: () => void;
};

function CommentItem({
  comment: c,
  action,
  back,
  here,
  hydrated,
  editing,
  urlError,
  urlHasEdit,
  onEdit,
  onDone,
}: CommentProps & { editing: boolean; onEdit: () => void }) {
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
            hydrated={hydrated}
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

function EditComment({ comment: c, action, back, here, hydrated, urlError, urlHasEdit, onDone }: CommentProps) {
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
      <Hidden intent="edit-comment" returnTo={back} hydrated={hydrated}>
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
