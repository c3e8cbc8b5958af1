import type { Route } from "./+types/pending-photos";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { readPhotoBody } from "~/api/read-body.server";
import { apiError, json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { discardFiles } from "~/forms/photo-form.server";
import { keepPendingPhotos } from "~/models/pending-photos.server";

// POST /kids/:kidId/pendingPhotos: one photo of a moment's form, sent by the photo uploader
// (app/components/photo-uploads.tsx) as soon as it is chosen, with JavaScript, so each photo shows
// its own progress and its own refusal (docs/decisions/0067-one-photo-control.md). The photo is
// kept as a pending photo of the signed-in parent (app/models/pending-photos.server.ts); the
// answer is `{"photo": {id, key, width, height, widths, placeholder}}` (201), which the form then
// names. Refusals: `{"errors": {"message": …}}` with 400 (not a photo), 413, 429 (hourly limit),
// 403/404 (not their kid). The field is `image`, one file.

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  const body = await readPhotoBody(request, { uploader: user.id, maxFiles: 1 });
  try {
    const problem = Object.values(body.errors).flat()[0];
    if (problem) return apiError(400, problem);
    if (!body.files.length) return apiError(400, "Choose a photo to send.");
    const kept = await keepPendingPhotos(user.id, kidId, body.files);
    if (!kept.ok) return apiRefusal(kept);
    const refused = kept.refused[0]?.messages[0];
    const photo = kept.kept[0];
    if (refused || !photo) return apiError(400, refused ?? "That file is not a photo.");
    const { id, key, width, height, widths, placeholder } = photo;
    return json({ photo: { id, key, width, height, widths, placeholder } }, { status: 201 });
  } finally {
    await discardFiles(body);
  }
}
