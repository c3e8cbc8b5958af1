import { apiError } from "./responses.server";

const MAX_TEXT_BODY = 1024 * 1024;

/**
 * The text fields of a request body, whether it came as JSON, urlencoded or multipart (the
 * contract accepts all three). File parts are left out: photos go through the image module's
 * streaming parser. A body that cannot be read answers 400 with envelope (C).
 */
export async function readFields(request: Request): Promise<Record<string, unknown>> {
  const type = (request.headers.get("Content-Type") ?? "").toLowerCase();
  const length = Number(request.headers.get("Content-Length") ?? "0");
  if (length > MAX_TEXT_BODY && !type.startsWith("multipart/form-data")) {
    throw apiError(413, "Request body is too large.");
  }
  try {
    if (type.startsWith("application/json")) {
      const text = await request.text();
      if (!text.trim()) return {};
      const parsed: unknown = JSON.parse(text);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      return parsed as Record<string, unknown>;
    }
    if (type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")) {
      const form = await request.formData();
      const out: Record<string, unknown> = {};
      for (const [key, value] of form) if (typeof value === "string" && !(key in out)) out[key] = value;
      return out;
    }
    const text = await request.text();
    return text.trim() ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    throw apiError(400, "The request body could not be read.");
  }
}

/** Values from JSON may be numbers or null; forms send strings. Schemas want strings or undefined. */
export function asFormValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") return value === "" ? undefined : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}
