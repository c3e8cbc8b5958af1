// The like and comment block under a moment (kid's moments page, moment page).
//
// Everything works without JavaScript: the forms post to /dailyLogs/<id>/social and come back to
// `returnTo` at the moment (#moment-<id>) or the comment (#comment-<id>); the comment section is a
// <details>; editing and the delete confirmation have URLs (?editComment=<id>,
// ?confirm=delete-comment&commentId=<id>) that the server renders. With JavaScript the forms post
// through fetchers (no navigation): the like count changes at once and settles to the server's
// answer, editing is inline, the textarea clears after a successful add.
import { useEffect, useState } from "react";
import { useFetcher, useLocation, useNavigation, useSearchParams, href } from "react-router";
import type { MomentSocialData } from "~/models/social.server";
import { ConfirmDialog } from "./modal";
import { useHydrated, useSubmitOnce } from "./form-basics";
import { ListLink } from "./list-link";
import { HeartIcon } from "./icons";
import { useRootData } from "./root-data";
import { cleanSocialPath, commentErrorMessage, withSearch } from "~/forms/comment";
import "~/styles/social.css";
import { CommentItem, Hidden, NewComment } from "./moment-comments";

/** What the block's action answers a fetcher (plain form posts get a redirect instead). */
export type SocialActionData =
  | { ok: true; intent: string; commentId?: number }
  | { ok: false; intent: string; message?: string; errors?: { comment: string[] } };

export const likesLabel = (n: number) => `${n} ${n === 1 ? "like" : "likes"}`;
export const commentsLabel = (n: number) => `${n} ${n === 1 ? "comment" : "comments"}`;
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
