import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { parseId } from "~/lib/request.server";
import { KID_NOT_FOUND, serializeKid } from "~/api/serializers-kids.server";
import { apiRefusal } from "~/api/refusal.server";
import { kidApiSchema } from "~/forms/kid";
import { readPhotoBody } from "~/api/read-body.server";
import { validateBody } from "~/forms/photo-form.server";
import { checkKidOwner, removeKid, updateKid, viewKid } from "~/models/kids.server";
import { coParentsOf } from "~/models/co-parents.server";
import { today } from "~/lib/dates.server";

// GET, PUT, DELETE /api/kids/{id}. Failures in docs/api.md's order: 404 → 403 → 400.
const route = apiRoute({
  GET: async ({ params }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, KID_NOT_FOUND);
    const view = await viewKid(user.id, id);
    return view.ok ? json(serializeKid(view.kid, await coParentsOf([view.kid.id]))) : apiRefusal(view);
  },

  PUT: async ({ params, request }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, KID_NOT_FOUND);
    const allowed = await checkKidOwner(user.id, id);
    if (!allowed.ok) return apiRefusal(allowed);
    const body = await readPhotoBody(request, { uploader: user.id });
    try {
      const valid = await validateBody(body, kidApiSchema("update", today()));
      if (!valid.ok) return apiRefusal(valid);
      const updated = await updateKid(user.id, id, valid.value, body.file);
      return updated.ok ? json(serializeKid(updated.kid, await coParentsOf([updated.kid.id]))) : apiRefusal(updated);
    } finally {
      await body.file?.discard();
    }
  },

  DELETE: async ({ params }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, KID_NOT_FOUND);
    const removed = await removeKid(user.id, id);
    return removed.ok ? json({ message: "kid remove successfully" }) : apiRefusal(removed);
  },
});

export const loader = route.loader;
export const action = route.action;
