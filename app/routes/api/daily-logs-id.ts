import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { MOMENT_NOT_FOUND, serializeMoment } from "~/api/serializers-kids.server";
import { apiRefusal } from "~/api/refusal.server";
import { momentFormSchema } from "~/forms/moment";
import { readPhotoBody } from "~/api/read-body.server";
import { discardFiles, momentPhotosFrom, validateBody } from "~/forms/photo-form.server";
import { MAX_PHOTOS } from "~/images/limits";
import { checkMomentOwner, viewMoment } from "~/models/moments.server";
import { deleteMoment, updateMoment } from "~/models/moment-changes.server";

// GET, PUT, DELETE /api/daily_logs/{id}. Failures in docs/api.md's order: 404 → 403 → 400.
const route = apiRoute({
  GET: async ({ params }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, MOMENT_NOT_FOUND);
    const view = await viewMoment(user.id, id);
    return view.ok ? json(serializeMoment(view.moment, { parent: view.isParent })) : apiRefusal(view);
  },

  PUT: async ({ params, request }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, MOMENT_NOT_FOUND);
    const allowed = await checkMomentOwner(user.id, id);
    if (!allowed.ok) return apiRefusal(allowed);
    const body = await readPhotoBody(request, { uploader: user.id, maxFiles: MAX_PHOTOS, maxVideos: 1 });
    try {
      const valid = await validateBody(body, momentFormSchema("update"));
      if (!valid.ok) return apiRefusal(valid);
      const updated = await updateMoment(user.id, id, valid.value, momentPhotosFrom(body));
      return updated.ok ? json(serializeMoment(updated.moment, { parent: true })) : apiRefusal(updated);
    } finally {
      await discardFiles(body);
    }
  },

  DELETE: async ({ params }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, MOMENT_NOT_FOUND);
    const deleted = await deleteMoment(user.id, id);
    return deleted.ok ? json({ message: "This daily_log is deleted successfully" }) : apiRefusal(deleted);
  },
});

export const loader = route.loader;
export const action = route.action;
