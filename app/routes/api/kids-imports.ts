import { apiRoute } from "~/api/route.server";
import { apiError, apiFieldErrors, json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { photoLimitResponse } from "~/api/read-body.server";
import { KID_NOT_FOUND } from "~/api/serializers-kids.server";
import { serializeImport } from "~/api/serializers-drafts.server";
import { parseId } from "~/lib/request.server";
import { BodyFailure } from "~/forms/parse-body.server";
import { readAddPhotosBody } from "~/forms/add-photos.server";
import { IMAGE_FIELD } from "~/images/limits";
import { checkKidOwner } from "~/models/kids.server";
import { addPhotosToDrafts } from "~/models/drafts/add.server";
import { isZipBody, readArchiveBody } from "~/imports/body.server";
import { importArchive } from "~/imports/imports.server";

// POST /api/kids/{kidId}/imports (docs/api.md "Drafts", docs/decisions/0065-drafts.md): photos
// (multipart, file parts named `image`) become draft moments grouped by the day taken; 201 with
// the drafts that got photos and the files refused. Failures: 404 → 403 (before the body is read)
// → 415/413/400 (the body) → 429 (the hourly photo limit).

/** What the request posts: the kinds of import this endpoint takes, told apart by the body's type. */
function postedKind(request: Request): "files" | "archive" | null {
  if (isZipBody(request)) return "archive";
  const type = (request.headers.get("Content-Type") ?? "").toLowerCase();
  return type.startsWith("multipart/form-data") ? "files" : null;
}

/** A Google Takeout album (the ZIP itself as the body) into this kid's drafts (docs/decisions/0066-imports.md). */
async function importAlbum(request: Request, userId: number, kidId: number): Promise<Response> {
  const body = await readArchiveBody(request);
  if (body instanceof BodyFailure) return apiError(body.status, body.message);
  const done = await importArchive(userId, body.file, { kidId, only: "takeout" });
  if (!done.ok) return apiRefusal(done);
  return json(serializeImport(done.drafts ?? [], done.refused ?? []), { status: 201 });
}

async function importFiles(request: Request, userId: number, kidId: number): Promise<Response> {
  const body = await readAddPhotosBody(request, userId);
  if (body instanceof BodyFailure) return apiError(body.status, body.message);
  try {
    if (body.photoLimitWaitMs) return photoLimitResponse(body.photoLimitWaitMs);
    if (body.problem) return apiFieldErrors({ [IMAGE_FIELD]: [body.problem] });
    const added = await addPhotosToDrafts(userId, kidId, body.items, { refused: body.refused });
    if (!added.ok) return apiRefusal(added);
    return json(serializeImport(added.drafts, added.refused), { status: 201 });
  } finally {
    await Promise.all(body.files.map((f) => f.file.discard()));
  }
}

const route = apiRoute({
  POST: async ({ params, request }, user) => {
    const kidId = parseId(params.kidId);
    if (!kidId) return apiError(404, KID_NOT_FOUND);
    const allowed = await checkKidOwner(user.id, kidId);
    if (!allowed.ok) return apiRefusal(allowed);
    switch (postedKind(request)) {
      case "files":
        return importFiles(request, user.id, kidId);
      case "archive":
        return importAlbum(request, user.id, kidId);
      default:
        return apiError(
          415,
          "Send the photos as multipart/form-data (file parts named image), or a Google Takeout album as application/zip.",
        );
    }
  },
});

export const loader = route.loader;
export const action = route.action;
