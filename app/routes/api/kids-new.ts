import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { serializeKid } from "~/api/serializers-kids.server";
import { apiRefusal } from "~/api/refusal.server";
import { kidApiSchema } from "~/forms/kid";
import { idempotencyKey, readPhotoBody } from "~/api/read-body.server";
import { validateBody } from "~/forms/photo-form.server";
import { createKid } from "~/models/kids.server";
import { today } from "~/lib/dates.server";

// POST /api/kids/new (multipart name, birth_date, relationship, optional image): 201 Kid.
// With an Idempotency-Key header a repeat answers the kid of the first (docs/api.md).
const route = apiRoute({
  POST: async ({ request }, user) => {
    const body = await readPhotoBody(request, { uploader: user.id });
    try {
      const valid = await validateBody(body, kidApiSchema("add", today()));
      if (!valid.ok) return apiRefusal(valid);
      const created = await createKid(user.id, valid.value, body.file, { token: idempotencyKey(request) });
      if (!created.ok) return apiRefusal(created);
      return json(serializeKid(created.kid), { status: 201 });
    } finally {
      await body.file?.discard();
    }
  },
});

export const loader = route.loader;
export const action = route.action;
