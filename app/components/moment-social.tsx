// The like and comment block under a moment (kid's moments page, moment page).
//
// Everything works without JavaScript: the forms post to /dailyLogs/<id>/social and come back to
// `returnTo` at the moment (#moment-<id>) or the comment (#comment-<id>); the comment section is a
// <details>; editing and the delete confirmation have URLs (?editComment=<id>,
// ?confirm=delete-comment&commentId=<id>) that the server renders. With JavaScript the forms post
// through fetchers (no navigation): the like count changes at once and settles to the server's
// answer, editing is inline, the textarea clears after a successful add.
import { useEffect, useState } from "react";
import { href, useLocation, useNavigation, useSearchParams } from "react-router";
import { cleanSocialPath, commentErrorMessage, withSearch } from "~/forms/comment";
import type { MomentSocialData } from "~/models/social.server";
import "~/styles/social.css";
import { useHydrated } from "./form-basics";
import { ListLink } from "./list-link";
import { ConfirmDialog } from "./modal";
import { CommentItem, NewComment } from "./moment-comments";
import { LikeCount, LikeForm, useOptimisticLike } from "./moment-likes";

/** What the block's action answers a fetcher (plain form posts get a redirect instead). */
export type SocialActionData =
  | { ok: true; intent: string; commentId?: number }
  | { ok: false; intent: string; message?: string; errors?: { comment: string[] } };

export const commentsLabel = (n: number) => `${n} ${n === 1 ? "comment" : "comments"}`;

/** Where the block's forms post, and where they come back to. */
type Paths = {
  /** The block's action. */
  action: string;
  /** The page the block is on (non-JS posts come back here). */
  back: string;
  /** The URL now, for the links that put the section's state in it. */
  here: string;
};

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
  const location = useLocation();
  const paths: Paths = {
    action: href("/dailyLogs/:momentId/social", { momentId: String(momentId) }),
    back: cleanSocialPath(returnTo),
    here: cleanSocialPath(location.pathname + location.search),
  };
  const like = useOptimisticLike(social);
  const total = Math.max(social.commentCount, social.comments.length);

  return (
    <div className="moment-social" data-moment={momentId}>
      <p className="social-counts">
        <LikeCount id={momentId} count={like.count} likers={like.likers} />
        {/* the "·" between the counts is drawn by CSS (app/styles/social.css): one element fewer per moment */}
        <span className="social-count social-count--comments">{commentsLabel(total)}</span>
      </p>
      <LikeForm like={like} action={paths.action} back={paths.back} />
      <CommentsSection momentId={momentId} social={social} paths={paths} />
    </div>
  );
}

/** The section's state a URL carries: the no-JS way to edit, confirm and see errors. */
function useCommentUrlState(momentId: number, social: MomentSocialData) {
  const [params] = useSearchParams();
  const editId = Number(params.get("editComment")) || null;
  const editing = editId && social.comments.some((c) => c.id === editId && c.mine) ? editId : null;
  const error =
    params.get("commentError") === String(momentId) ? commentErrorMessage(params.get("commentReason")) : null;
  const confirmId = params.get("confirm") === "delete-comment" ? Number(params.get("commentId")) : null;
  const confirming = confirmId ? social.comments.find((c) => c.id === confirmId && c.mine) : undefined;
  return { editId, editing, error, confirming, showComments: params.get("showComments") === String(momentId) };
}

type CommentUrlState = ReturnType<typeof useCommentUrlState>;

/**
 * The comments: a link that asks for them by URL until the page's scripts run (or without
 * JavaScript), a <details> afterwards and whenever the URL opens it; and the delete confirmation.
 */
function CommentsSection({ momentId, social, paths }: { momentId: number; social: MomentSocialData; paths: Paths }) {
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const url = useCommentUrlState(momentId, social);
  // inline editing with JavaScript (overrides the URL once used)
  const [localEdit, setLocalEdit] = useState<{ id: number | null } | null>(null);

  const onMomentPage =
    paths.back.split("?")[0]!.toLowerCase() ===
    href("/dailyLogs/:momentId", { momentId: String(momentId) }).toLowerCase();
  const startOpen = onMomentPage || url.showComments || Boolean(url.editing || url.error || url.confirming);
  const [open, setOpen] = useState(startOpen);
  useEffect(() => {
    if (startOpen) setOpen(true);
  }, [startOpen]);

  return (
    <>
      {!open && !hydrated ? (
        // closed, before the page's scripts run (or without JavaScript): a link that asks for the
        // section by URL, so a list does not carry every moment's comments and form
        // (docs/decisions/0037-kid-page-cost.md); once hydrated it becomes the <details> below
        <a
          className="button button--small button--secondary comment-toggle"
          href={`${withSearch(paths.here, { showComments: momentId })}#comments-${momentId}`}
        >
          Comment
        </a>
      ) : (
        <details className="social-comments" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary className="button button--small button--secondary comment-toggle">Comment</summary>
          {open ? (
            <CommentsBody
              momentId={momentId}
              social={social}
              paths={paths}
              url={url}
              localEdit={localEdit}
              setLocalEdit={setLocalEdit}
            />
          ) : null}
        </details>
      )}

      {url.confirming ? (
        <ConfirmDialog
          title="Confirm Delete Comment"
          question="Are you sure you want to delete this comment?"
          yesLabel="Yes (Delete Comment)"
          noLabel="No (Keep Comment)"
          closeTo={`${paths.here}#comment-${url.confirming.id}`}
          action={paths.action}
          intent="delete-comment"
          hidden={{ commentId: String(url.confirming.id), returnTo: paths.back }}
          pending={navigation.state === "submitting" && navigation.formAction === paths.action}
        />
      ) : null}
    </>
  );
}

/** The open section: the new comment form, the comments shown (one may be in its editor), and a link to all of them. */
function CommentsBody({
  momentId,
  social,
  paths,
  url,
  localEdit,
  setLocalEdit,
}: {
  momentId: number;
  social: MomentSocialData;
  paths: Paths;
  url: CommentUrlState;
  localEdit: { id: number | null } | null;
  setLocalEdit: (edit: { id: number | null }) => void;
}) {
  const editingId = localEdit ? localEdit.id : url.editing;
  const shown = social.comments.length;
  const total = Math.max(social.commentCount, shown);
  return (
    <div className="social-comments__body" id={`comments-${momentId}`}>
      <NewComment
        momentId={momentId}
        action={paths.action}
        back={paths.back}
        urlError={url.editing ? null : url.error}
      />
      {shown ? (
        <ul className="comment-list" aria-label="Comments">
          {social.comments.map((c) => (
            <CommentItem
              key={c.id}
              comment={c}
              action={paths.action}
              back={paths.back}
              here={paths.here}
              editing={editingId === c.id}
              urlError={url.editing === c.id && !localEdit ? url.error : null}
              urlHasEdit={url.editId !== null}
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
  );
}
