import { data, redirect, href } from "react-router";
import type { Route } from "./+types/moment-social";
import { requireUser } from "~/web/auth.server";
import { safeRedirectPath } from "~/lib/redirect";
import { parseId } from "~/lib/request.server";
import { likeMoment, unlikeMoment } from "~/models/likes.server";
import { addComment, deleteComment, updateComment } from "~/models/comments.server";
import type { Refusal } from "~/models/refusal";
import { pageRefusal, refusalStatus } from "~/web/refusal.server";
import { cleanSocialPath, commentErrorCode, withSearch } from "~/forms/comment";
import { SUBMISSION_FIELD } from "~/forms/submission";
import type { SocialActionData } from "~/components/moment-social";

// The form posts of the likes-and-comments block (components/moment-social.tsx), for every page
// that shows it. Intents: like, unlike, comment, edit-comment, delete-comment. Validation and
// authorization are the models' (the same functions as /api).
//
// Two kinds of caller:
// - A plain form post (JavaScript off, or the delete confirmation's <Form>): post/redirect/get, 303
//   back to `returnTo` (a same-site path) at the moment (#moment-<id>) or the comment
//   (#comment-<id>). A refused comment comes back as `?commentError=<momentId>&commentReason=<code>` (plus
//   `editComment=<id>` for an edit), which the block renders beside the textarea; the text box then
//   starts empty (without JavaScript the textarea carries maxlength=1000, so only blank text can be
//   refused, and there is nothing to lose).
// - The block's fetchers (JavaScript on; they add `_fetcher=1`): data, never a redirect, so the page
//   stays where it is; React Router then revalidates the page's loaders, which is how the like count
//   and the comment list settle to the server's answer.

export async function loader({ request, params }: Route.LoaderArgs) {
  await requireUser(request);
  const momentId = parseId(params.momentId);
  if (!momentId) throw data("Not found", { status: 404 });
  throw redirect(href("/dailyLogs/:momentId", { momentId: String(momentId) }));
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const momentId = parseId(params.momentId);
  if (!momentId) throw data("Not found", { status: 404 });
  const form = await request.formData();
  const viaFetcher = form.get("_fetcher") === "1";
  const intent = text(form.get("intent")) ?? "";
  const back = cleanSocialPath(
    safeRedirectPath(form.get("returnTo")) ?? href("/dailyLogs/:momentId", { momentId: String(momentId) }),
  );

  const done = (extra: Record<string, string | number>, hash: string, commentId?: number) =>
    viaFetcher
      ? data<SocialActionData>({ ok: true, intent, commentId })
      : redirect(withSearch(back, extra) + hash, 303);

  /** Not allowed or not there: the plain not-found page, or 403 with the reason for a non-author. */
  const refused = (r: Refusal) => {
    if (viaFetcher)
      return data<SocialActionData>({ ok: false, intent, message: r.message }, { status: refusalStatus(r) });
    throw pageRefusal(r);
  };

  /** The comment text was refused: its message beside the textarea. */
  const invalid = (r: Refusal, extra: Record<string, string | number>, hash: string) => {
    const errors = { comment: r.fieldErrors?.comment ?? [] };
    if (viaFetcher) return data<SocialActionData>({ ok: false, intent, errors }, { status: 400 });
    const commentReason = commentErrorCode(errors.comment[0] ?? "");
    return redirect(withSearch(back, { ...extra, commentError: momentId, commentReason }) + hash, 303);
  };

  switch (intent) {
    case "like": {
      const r = await likeMoment(user.id, momentId);
      // already liked (a double click, another tab): "liked" is where the user wanted to be
      if (!r.ok && r.kind !== "conflict") return refused(r);
      return done({}, `#moment-${momentId}`);
    }
    case "unlike": {
      const r = await unlikeMoment(user.id, momentId);
      // no like (any more): "not liked" is where the user wanted to be
      if (!r.ok && r.kind !== "not-found") return refused(r);
      return done({}, `#moment-${momentId}`);
    }
    case "comment": {
      const r = await addComment(user.id, momentId, text(form.get("comment")), { token: form.get(SUBMISSION_FIELD) });
      if (r.ok) return done({ showComments: momentId }, `#comment-${r.comment.id}`, r.comment.id);
      if (r.kind === "invalid") return invalid(r, { showComments: momentId }, `#comments-${momentId}`);
      return refused(r);
    }
    case "edit-comment": {
      const commentId = parseId(text(form.get("commentId")));
      if (!commentId) throw data("Not found", { status: 404 });
      const r = await updateComment(user.id, commentId, text(form.get("comment")), { momentId });
      if (r.ok) return done({ showComments: momentId }, `#comment-${commentId}`, commentId);
      if (r.kind === "invalid")
        return invalid(r, { showComments: momentId, editComment: commentId }, `#comment-${commentId}`);
      return refused(r);
    }
    case "delete-comment": {
      const commentId = parseId(text(form.get("commentId")));
      if (!commentId) throw data("Not found", { status: 404 });
      const r = await deleteComment(user.id, commentId, { momentId });
      if (r.ok) return done({ showComments: momentId }, `#moment-${momentId}`, commentId);
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
