import { data, redirect } from "react-router";
import type { Route } from "./+types/moment-social";
import { requireUser } from "~/web/auth.server";
import { safeRedirectPath } from "~/lib/redirect";
import { parseId } from "~/lib/request.server";
import { likeLog, LIKE_MESSAGES, unlikeLog, type SocialRefusal } from "~/models/likes.server";
import { addComment, deleteComment, updateComment } from "~/models/comments.server";
import { cleanSocialPath, commentErrorCode, withSearch } from "~/forms/comment";
import type { SocialActionData } from "~/components/moment-social";

// The form posts of the likes-and-comments block (components/moment-social.tsx), for every page
// that shows it. Intents: like, unlike, comment, edit-comment, delete-comment. Validation and
// authorization are the models' (the same functions as /api).
//
// Two kinds of caller:
// - A plain form post (JavaScript off, or the delete confirmation's <Form>): post/redirect/get, 303
//   back to `returnTo` (a same-site path) at the moment (#moment-<id>) or the comment
//   (#comment-<id>). A refused comment comes back as `?commentError=<logId>&commentReason=<code>` (plus
//   `editComment=<id>` for an edit), which the block renders beside the textarea; the text box then
//   starts empty (without JavaScript the textarea carries maxlength=1000, so only blank text can be
//   refused, and there is nothing to lose).
// - The block's fetchers (JavaScript on; they add `_fetcher=1`): data, never a redirect, so the page
//   stays where it is; React Router then revalidates the page's loaders, which is how the like count
//   and the comment list settle to the server's answer.

export async function loader({ request, params }: Route.LoaderArgs) {
  await requireUser(request);
  const logId = parseId(params.dailyLogId);
  if (!logId) throw data("Not found", { status: 404 });
  throw redirect(`/dailyLogs/${logId}`);
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const logId = parseId(params.dailyLogId);
  if (!logId) throw data("Not found", { status: 404 });
  const form = await request.formData();
  const viaFetcher = form.get("_fetcher") === "1";
  const intent = text(form.get("intent")) ?? "";
  const back = cleanSocialPath(safeRedirectPath(form.get("returnTo")) ?? `/dailyLogs/${logId}`);

  const done = (extra: Record<string, string | number>, hash: string, commentId?: number) =>
    viaFetcher
      ? data<SocialActionData>({ ok: true, intent, commentId })
      : redirect(withSearch(back, extra) + hash, 303);

  /** Not allowed or not there: the plain not-found page, or 403 with the reason for a non-author. */
  const refused = (r: SocialRefusal) => {
    if (viaFetcher) return data<SocialActionData>({ ok: false, intent, message: r.message }, { status: r.status });
    if (r.status === 403 && !r.hidden) throw data(r.message, { status: 403 });
    throw data("Not found", { status: 404 });
  };

  const invalid = (errors: { comment: string[] }, extra: Record<string, string | number>, hash: string) => {
    if (viaFetcher) return data<SocialActionData>({ ok: false, intent, errors }, { status: 400 });
    const commentReason = commentErrorCode(errors.comment[0] ?? "");
    return redirect(withSearch(back, { ...extra, commentError: logId, commentReason }) + hash, 303);
  };

  switch (intent) {
    case "like": {
      const r = await likeLog(user.id, logId);
      // already liked (a double click, another tab): "liked" is where the user wanted to be
      if (!r.ok && !("alreadyLiked" in r && r.alreadyLiked)) return refused(r);
      return done({}, `#moment-${logId}`);
    }
    case "unlike": {
      const r = await unlikeLog(user.id, logId);
      if (!r.ok && !(r.status === 404 && r.message === LIKE_MESSAGES.likeNotFound)) return refused(r);
      return done({}, `#moment-${logId}`);
    }
    case "comment": {
      const r = await addComment(user.id, logId, text(form.get("comment")));
      if (r.ok) return done({ showComments: logId }, `#comment-${r.comment.id}`, r.comment.id);
      if ("errors" in r) return invalid(r.errors, { showComments: logId }, `#comments-${logId}`);
      return refused(r);
    }
    case "edit-comment": {
      const commentId = parseId(text(form.get("commentId")));
      if (!commentId) throw data("Not found", { status: 404 });
      const r = await updateComment(user.id, commentId, text(form.get("comment")), { logId });
      if (r.ok) return done({ showComments: logId }, `#comment-${commentId}`, commentId);
      if ("errors" in r) return invalid(r.errors, { showComments: logId, editComment: commentId }, `#comment-${commentId}`);
      return refused(r);
    }
    case "delete-comment": {
      const commentId = parseId(text(form.get("commentId")));
      if (!commentId) throw data("Not found", { status: 404 });
      const r = await deleteComment(user.id, commentId, { logId });
      if (r.ok) return done({ showComments: logId }, `#moment-${logId}`, commentId);
      return refused(r);
    }
    default:
      throw data("That request could not be handled.", { status: 400 });
  }
}

function text(value: FormDataEntryValue | null): string | undefined {
  return typeof value === "string" ? value : undefined;
}

// A UI route (not a resource route), so a refused plain form post renders the site's error page.
// Nothing renders here otherwise: GET redirects to the moment and posts redirect back.
export default function MomentSocialRoute() {
  return null;
}
