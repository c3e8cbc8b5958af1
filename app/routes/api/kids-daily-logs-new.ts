import { apiRoute } from "~/api/route.server";
import { apiError, apiFieldErrors, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { apiRefusal, KID_NOT_FOUND, serializeDailyLog } from "~/api/serializers-kids.server";
import { momentFormSchema } from "~/forms/moment";
import { readPhotoBody } from "~/api/body.server";
import { validateBody } from "~/forms/photo-form.server";
import { checkKidOwner } from "~/models/kids.server";
import { createMoment } from "~/models/moments.server";

// POST /api/kids/{kidId}/daily_logs/new (multipart title, content, image): 201 DailyLog.
const route = apiRoute({
  POST: async ({ params, request }, user) => {
    const kidId = parseId(params.kidId);
    if (!kidId) return apiError(404, KID_NOT_FOUND);
    const allowed = await checkKidOwner(user.id, kidId);
    if (!allowed.ok) return apiRefusal(allowed, KID_NOT_FOUND);
    const body = await readPhotoBody(request);
    try {
      const valid = await validateBody(body, momentFormSchema("add"));
      if (!valid.ok) return apiFieldErrors(valid.errors);
      const created = await createMoment(user.id, kidId, valid.value, body.file);
      if (created.ok) return json(serializeDailyLog(created.moment), { status: 201 });
      return created.reason === "invalid" ? apiFieldErrors(created.errors) : apiRefusal(created, KID_NOT_FOUND);
    } finally {
      await body.file?.discard();
    }
  },
});

export const loader = route.loader;
export const action = route.action;
