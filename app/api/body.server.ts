import { MULTIPART_MESSAGES, parseMultipart, UPLOAD_LIMITS } from "~/images/multipart.server";
import { apiError } from "./responses.server";

const MAX_TEXT_BODY = 1024 * 1024;

/**
 * The text fields of a request body, whether it came as JSON, urlencoded or multipart (the
 * contract accepts all three). A multipart body is streamed by the image module's parser, never
 * buffered whole: its text fields are kept (each up to 1 MB, like a whole JSON body) and any file
 * part is thrown away (photos go through the image module). A body that cannot be read answers
 * 400 with envelope (C); one that is too large, 413.
 */
export async function readFields(request: Request): Promise<Record<string, unknown>> {
  const type = (request.headers.get("Content-Type") ?? "").toLowerCase();
  const length = Number(request.headers.get("Content-Length") ?? "0");
  if (length > MAX_TEXT_BODY && !type.startsWith("multipart/form-data")) {
    throw apiError(413, "Request body is too large.");
  }
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
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    return parsed as Record<string, unknown>;
  } catch (error) {
    if (error instanceof Response) throw error;
    throw apiError(400, "The request body could not be read.");
  }
}

async function multipartFields(request: Request): Promise<Record<string, unknown>> {
  const { fields, file, errors } = await parseMultipart(request, {
    // a file here is never wanted: stop saving it at once (it is read and discarded)
    maxFileBytes: 0,
    maxFieldBytes: MAX_TEXT_BODY,
    maxBodyBytes: UPLOAD_LIMITS.maxBodyBytes,
  });
  await file?.discard();
  const requestErrors = errors.message ?? [];
  if (requestErrors.includes(MULTIPART_MESSAGES.bodyTooBig)) throw apiError(413, "Request body is too large.");
  if (requestErrors.length) throw apiError(400, "The request body could not be read.");
  const tooLong = Object.entries(errors).some(([name, list]) => name !== "message" && name !== "image" && list.length > 0);
  if (tooLong) throw apiError(413, "Request body is too large.");
  return { ...fields };
}

/** Values from JSON may be numbers or null; forms send strings. Schemas want strings or undefined. */
export function asFormValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") return value === "" ? undefined : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}
