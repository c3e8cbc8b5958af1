import type { z } from "zod";
import { BodyFailure, parseBodyFields } from "~/forms/parse-body.server";
import {
  parsePhotoBody,
  parsePhotoForm,
  type PhotoBody,
  type PhotoBodyOptions,
  type PhotoFormResult,
} from "~/forms/photo-form.server";
import { apiError } from "./responses.server";
import { config } from "~/lib/config.server";
import { photoLimitMessage } from "~/images/limits";
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

/** The kid and moment API bodies: text fields and the photo (see `parsePhotoBody`); 429 past the hourly photo limit. */
export async function readPhotoBody(request: Request, opts: PhotoBodyOptions): Promise<PhotoBody> {
  const body = answered(await parsePhotoBody(request, opts));
  if (body.photoLimitWaitMs) throw photoLimitResponse(body.photoLimitWaitMs);
  return body;
}

/** 429 (C) past the hourly photo limit (PHOTO_UPLOADS_PER_HOUR), with Retry-After in seconds. */
export function photoLimitResponse(waitMs: number): Response {
  const response = apiError(429, photoLimitMessage(config().photoUploadsPerHour, waitMs));
  response.headers.set("Retry-After", String(retryAfterSeconds(waitMs)));
  return response;
}

/** Retry-After's whole seconds for a wait in milliseconds (at least 1). */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/**
 * The kid and moment page forms (see `parsePhotoForm`). A page posts multipart; any other body that
 * cannot be read gets the same answer as on /api.
 */
export async function readPhotoForm<S extends z.ZodType>(
  request: Request,
  schema: S,
  opts: PhotoBodyOptions,
): Promise<PhotoFormResult<z.output<S>>> {
  return answered(await parsePhotoForm(request, schema, opts));
}

/**
 * The optional `Idempotency-Key` header of the /api creates (docs/api.md): the one-time submission
 * token of app/models/submissions.server.ts. Absent or malformed: as if there were none.
 */
export function idempotencyKey(request: Request): string | undefined {
  return request.headers.get(IDEMPOTENCY_HEADER) ?? undefined;
}
