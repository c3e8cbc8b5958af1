import { BODY_MESSAGES, MAX_TEXT_BODY_BYTES, MULTIPART_MESSAGES, UPLOAD_LIMITS } from "~/images/limits";
import { parseMultipart } from "~/images/multipart.server";

// Reading the text fields of a request body, for the forms that the pages and /api share. A body
// that cannot be read is a typed failure (BodyFailure), never an exception and never a response:
// the adapters answer it (app/api/read-body.server.ts with the API's envelope).

/** A body that cannot be read (400) or is too large (413), with the message to show. */
export class BodyFailure {
  constructor(
    readonly status: 400 | 413,
    readonly message: string,
  ) {}
}

const unreadable = () => new BodyFailure(400, BODY_MESSAGES.unreadable);
const tooLarge = () => new BodyFailure(413, BODY_MESSAGES.tooLarge);

/**
 * The text fields of a request body, whether it came as JSON, urlencoded or multipart (the API
 * accepts all three). A multipart body is streamed by the image module's parser, never buffered
 * whole: its text fields are kept (each up to MAX_TEXT_BODY_BYTES, like a whole JSON body) and any
 * file part is thrown away (photos go through the image module).
 */
export async function parseBodyFields(request: Request): Promise<Record<string, unknown> | BodyFailure> {
  const type = (request.headers.get("Content-Type") ?? "").toLowerCase();
  const length = Number(request.headers.get("Content-Length") ?? "0");
  if (length > MAX_TEXT_BODY_BYTES && !type.startsWith("multipart/form-data")) return tooLarge();
  try {
    if (type.startsWith("multipart/form-data")) return await multipartFields(request);
    if (type.startsWith("application/x-www-form-urlencoded")) {
      const form = await request.formData();
      const out: Record<string, unknown> = {};
      for (const [key, value] of form) if (typeof value === "string" && !(key in out)) out[key] = value;
      return out;
    }
    // JSON, or a body that does not say what it is: read as JSON, and only an object has fields
    const text = await request.text();
    if (!text.trim()) return {};
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return unreadable();
    return parsed as Record<string, unknown>;
  } catch {
    return unreadable();
  }
}

async function multipartFields(request: Request): Promise<Record<string, unknown> | BodyFailure> {
  const { fields, file, errors } = await parseMultipart(request, {
    // a file here is never wanted: stop saving it at once (it is read and discarded)
    maxFileBytes: 0,
    maxFieldBytes: MAX_TEXT_BODY_BYTES,
    maxBodyBytes: UPLOAD_LIMITS.maxBodyBytes,
  });
  await file?.discard();
  const requestErrors = errors.message ?? [];
  if (requestErrors.includes(MULTIPART_MESSAGES.bodyTooBig)) return tooLarge();
  if (requestErrors.length) return unreadable();
  const tooLong = Object.entries(errors).some(
    ([name, list]) => name !== "message" && name !== "image" && list.length > 0,
  );
  if (tooLong) return tooLarge();
  return { ...fields };
}

/** Values from JSON may be numbers or null; forms send strings. Schemas want strings or undefined. */
export function asFormValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") return value === "" ? undefined : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}
