import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { KID_NOT_FOUND, serializeMoment } from "~/api/serializers-kids.server";
import { apiRefusal } from "~/api/refusal.server";
import { momentFormSchema } from "~/forms/moment";
import { idempotencyKey, readPhotoBody } from "~/api/read-body.server";
import { discardFiles, momentPhotosFrom, validateBody } from "~/forms/photo-form.server";
import { MAX_PHOTOS } from "~/images/limits";
import { checkKidOwner } from "~/models/kids.server";
import { createMoment } from "~/models/moment-changes.server";

// POST /api/kids/{kidId}/daily_logs/new (multipart title, content, image): 201 DailyLog.
// With an Idempotency-Key header a repeat answers the daily log of the first (docs/api.md).
const route = apiRoute({
  POST: async ({ params, request }, user) => {
    const kidId = parseId(params.kidId);
    if (!kidId) return apiError(404, KID_NOT_FOUND);
    const allowed = await checkKidOwner(user.id, kidId);
    if (!allowed.ok) return apiRefusal(allowed);
    const body = await readPhotoBody(request, { uploader: user.id, maxFiles: MAX_PHOTOS, maxVideos: 1 });
    try {
      const valid = await validateBody(body, momentFormSchema("add"));
      if (!valid.ok) return apiRefusal(valid);
      const created = await createMoment(user.id, kidId, valid.value, momentPhotosFrom(body), {
        token: idempotencyKey(request),
      });
      return created.ok
        ? json(serializeMoment(created.moment, { parent: true }), { status: 201 })
        : apiRefusal(created);
    } finally {
      await discardFiles(body);
    }
  },
});

export const loader = route.loader;
export const action = route.action;
