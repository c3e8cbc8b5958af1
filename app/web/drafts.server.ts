import { data, href, redirect } from "react-router";
import { config } from "~/lib/config.server";
import { parseId } from "~/lib/request.server";
import { photoLimitMessage } from "~/images/limits";
import { readAddPhotosBody } from "~/forms/add-photos.server";
import { parseDraftFields } from "~/forms/draft";
import { BodyFailure } from "~/forms/parse-body.server";
import { retryAfterSeconds } from "~/api/read-body.server";
import { addPhotosToDrafts } from "~/models/drafts/add.server";
import { discardDraft, dropPhoto, mergeDrafts, movePhoto, splitDraft, updateDraft } from "~/models/drafts/edit.server";
import { publishAllDrafts, publishDraft } from "~/models/drafts/publish.server";
import { dismissRefused } from "~/models/drafts/refusals.server";
import type { Refusal } from "~/models/refusal";
import { OWNER_ONLY, pageRefusal } from "./refusal.server";

// The pages of draft moments (docs/decisions/0065-drafts.md): the "Add photos" form's post and the
// review page's forms, told apart by `intent`. Plain POST forms, post-redirect-get; a problem comes
// back to the page with its message (400), on the draft's fields when it is one draft's.

const reviewPage = (kidId: number, draftId?: number) =>
  href("/kids/:kidId/drafts", { kidId: String(kidId) }) + (draftId ? `#draft-${draftId}` : "");

/** What a failed post tells the page: a message, and for one draft's form its field errors and values. */
export type DraftsActionData = {
  error: string;
  draftId?: number;
  errors?: Record<string, string[]>;
  values?: Record<string, string>;
};

/** The "Add photos" form: photos in, to the review page; a problem back to the form. */
export async function addPhotosForm(request: Request, userId: number, kidId: number) {
  const body = await readAddPhotosBody(request, userId);
  if (body instanceof BodyFailure) return data({ error: body.message }, { status: body.status });
  try {
    if (body.photoLimitWaitMs)
      return data(
        { error: photoLimitMessage(config().photoUploadsPerHour, body.photoLimitWaitMs) },
        { status: 429, headers: { "Retry-After": String(retryAfterSeconds(body.photoLimitWaitMs)) } },
      );
    if (body.problem) return data({ error: body.problem }, { status: 400 });
    const added = await addPhotosToDrafts(userId, kidId, body.items, { refused: body.refused });
    if (!added.ok) throw pageRefusal(added, { forbidden: OWNER_ONLY });
    return redirect(reviewPage(kidId), 303);
  } finally {
    await Promise.all(body.files.map((f) => f.file.discard()));
  }
}

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v : "";
};

/** A refusal of one of the review page's forms: back to the page (400) with its message, or the not-found page. */
function refused(r: Refusal, draftId?: number, values?: Record<string, string>) {
  if (r.kind === "not-found" && !r.fieldErrors) throw pageRefusal(r);
  if (r.kind === "forbidden") throw pageRefusal(r, { forbidden: OWNER_ONLY });
  return back({ error: r.message ?? "That did not work.", draftId, errors: r.fieldErrors, values });
}

/** Back to the review page with what went wrong (400). */
const back = (result: DraftsActionData) => data<DraftsActionData>(result, { status: 400 });

/** The review page's forms. */
export async function draftsForm(request: Request, userId: number, kidId: number) {
  const form = await request.formData();
  const intent = text(form, "intent");
  const draftId = parseId(text(form, "draft")) ?? 0;
  const photoId = parseId(text(form, "photo")) ?? 0;
  const values = Object.fromEntries([...form.entries()].filter((e): e is [string, string] => typeof e[1] === "string"));
  switch (intent) {
    case "save":
    case "publish": {
      const parsed = parseDraftFields(values);
      if (!parsed.ok) return refused(parsed, draftId, values);
      const saved = await updateDraft(userId, draftId, parsed.value);
      if (!saved.ok) return refused(saved, draftId, values);
      if (intent === "save") return redirect(reviewPage(kidId, draftId), 303);
      const published = await publishDraft(userId, draftId);
      if (!published.ok) return refused(published, draftId, values);
      return redirect(reviewPage(kidId), 303);
    }
    case "publish-all": {
      const all = await publishAllDrafts(userId, kidId);
      if (!all.ok) return refused(all);
      const [first] = all.unfinished;
      if (first)
        return back({
          error: `${all.published.length} published. ${all.unfinished.length === 1 ? "One draft needs" : `${all.unfinished.length} drafts need`} changes first: ${first.refusal.message}`,
          draftId: first.draftId,
          errors: first.refusal.fieldErrors,
        });
      return redirect(reviewPage(kidId), 303);
    }
    case "move": {
      const to = text(form, "to");
      const moved = await movePhoto(userId, photoId, to === "new" ? "new" : (parseId(to) ?? 0));
      return moved.ok ? redirect(reviewPage(kidId), 303) : refused(moved);
    }
    case "split": {
      const split = await splitDraft(userId, draftId, photoId);
      return split.ok ? redirect(reviewPage(kidId), 303) : refused(split);
    }
    case "merge": {
      const merged = await mergeDrafts(userId, draftId, parseId(text(form, "into")) ?? 0);
      return merged.ok ? redirect(reviewPage(kidId), 303) : refused(merged);
    }
    case "drop": {
      const dropped = await dropPhoto(userId, photoId);
      return dropped.ok ? redirect(reviewPage(kidId, draftId), 303) : refused(dropped);
    }
    case "discard": {
      const gone = await discardDraft(userId, draftId);
      return gone.ok ? redirect(reviewPage(kidId), 303) : refused(gone);
    }
    case "dismiss-refused":
      await dismissRefused(userId, kidId);
      return redirect(reviewPage(kidId), 303);
    default:
      return back({ error: "That request could not be handled." });
  }
}
