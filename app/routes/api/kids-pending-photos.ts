import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { KID_NOT_FOUND } from "~/api/serializers-kids.server";
import { apiRefusal } from "~/api/refusal.server";
import { readPhotoBody } from "~/api/read-body.server";
import { discardFiles } from "~/forms/photo-form.server";
import { IMAGE_MESSAGES } from "~/images/limits";
import { checkKidOwner } from "~/models/kids.server";
import { keepPendingPhotos } from "~/models/pending-photos.server";

// POST /api/kids/{kidId}/pending_photos (multipart, one `image`): a photo for a moment's form,
// kept as a pending photo of the signed-in parent until a moment takes it
// (docs/decisions/0067-one-photo-control.md, app/models/pending-photos.server.ts). The pages' photo
// control sends each chosen photo here with JavaScript, so each shows its own progress and its own
// refusal (app/components/photo-uploads.tsx). 201 `{"photo": {id, key, width, height, widths,
// placeholder}}`; the page's form then names it in `pending` (docs/api.md).
const route = apiRoute({
  POST: async ({ params, request }, user) => {
    const kidId = parseId(params.kidId);
    if (!kidId) return apiError(404, KID_NOT_FOUND);
    const allowed = await checkKidOwner(user.id, kidId);
    if (!allowed.ok) return apiRefusal(allowed);
    const body = await readPhotoBody(request, { uploader: user.id, maxFiles: 1 });
    try {
      const problem = Object.values(body.errors).flat()[0];
      if (problem) return apiError(400, problem);
      if (!body.files.length) return apiError(400, IMAGE_MESSAGES.notAnImage);
      const kept = await keepPendingPhotos(user.id, kidId, body.files);
      if (!kept.ok) return apiRefusal(kept);
      const photo = kept.kept[0];
      if (!photo) return apiError(400, kept.refused[0]?.messages[0] ?? IMAGE_MESSAGES.notAnImage);
      const { id, key, width, height, widths, placeholder } = photo;
      return json({ photo: { id, key, width, height, widths, placeholder } }, { status: 201 });
    } finally {
      await discardFiles(body);
    }
  },
});

export const loader = route.loader;
export const action = route.action;
