import { apiRoute } from "~/api/route.server";
import { apiError, apiFieldErrors, json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { serializeImportDone } from "~/api/serializers-imports.server";
import { BodyFailure } from "~/forms/parse-body.server";
import { parseId } from "~/lib/request.server";
import { ARCHIVE_FIELD } from "~/imports/archive.server";
import { readArchiveBody } from "~/imports/body.server";
import { importArchive } from "~/imports/imports.server";

// POST /api/imports (docs/api.md "Imports", docs/decisions/0066-imports.md): "Move in" by API. The
// body is the ZIP itself (`Content-Type: application/zip`) or multipart (file part `archive`, and
// `kid_id` for a Google Takeout album). An export of another server becomes kids and moments; a
// Takeout album draft moments of the kid named. 201 with what was imported and skipped.
const route = apiRoute({
  POST: async ({ request }, user) => {
    const body = await readArchiveBody(request);
    if (body instanceof BodyFailure) return apiError(body.status, body.message);
    if (body.problem) {
      await body.file?.discard();
      return apiFieldErrors({ [ARCHIVE_FIELD]: [body.problem] });
    }
    const kidId = parseId(new URL(request.url).searchParams.get("kid_id") ?? body.fields.kid_id ?? "");
    const done = await importArchive(user.id, body.file, { kidId });
    if (!done.ok) return apiRefusal(done);
    return json(serializeImportDone(done), { status: 201 });
  },
});

export const loader = route.loader;
export const action = route.action;
