import type { z } from "zod";
import { BodyFailure, parseBodyFields } from "~/forms/body.server";
import { parsePhotoBody, parsePhotoForm, type PhotoBody, type PhotoBodyOptions, type PhotoFormResult } from "~/forms/photo-form.server";
import { apiError } from "./responses.server";
import { IDEMPOTENCY_HEADER } from "~/forms/submission";

// The forms' body readers (app/forms), with an unreadable body answered the API's way: envelope (C)
// `{"errors": {"message": …}}`, 400 when it cannot be read and 413 when it is too large. The
// readers throw that Response (routes pass thrown Responses through).

function answered<T>(result: T | BodyFailure): T {
  if (result instanceof BodyFailure) throw apiError(result.status, result.message);
  return result;
}

/** The text fields of a JSON, urlencoded or multipart body (see `parseBodyFields`). */
export async function readFields(request: Request): Promise<Record<string, unknown>> {
  return answered(await parseBodyFields(request));
}

/** The kid and moment API bodies: text fields and the photo (see `parsePhotoBody`). */
export async function readPhotoBody(request: Request, opts: PhotoBodyOptions = {}): Promise<PhotoBody> {
  return answered(await parsePhotoBody(request, opts));
}

/**
 * The kid and moment page forms (see `parsePhotoForm`). A page posts multipart; any other body that
 * cannot be read gets the same answer as on /api.
 */
export async function readPhotoForm<S extends z.ZodType>(request: Request, schema: S, opts: PhotoBodyOptions = {}): Promise<PhotoFormResult<z.output<S>>> {
  return answered(await parsePhotoForm(request, schema, opts));
}

/**
 * The optional `Idempotency-Key` header of the /api creates (docs/api.md): the one-time submission
 * token of app/models/submissions.server.ts. Absent or malformed: as if there were none.
 */
export function idempotencyKey(request: Request): string | undefined {
  return request.headers.get(IDEMPOTENCY_HEADER) ?? undefined;
}
