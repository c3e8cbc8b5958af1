import { parseWithZod } from "@conform-to/zod/v4";
import type { SubmissionResult } from "@conform-to/react";
import type { z } from "zod";
import { IMAGE_FIELD, IMAGE_PRESENT } from "~/images/limits";
import { parseMultipart, type UploadedFile } from "~/images/multipart.server";
import { checkImage } from "~/images/process.server";
import { asFormValue, BodyFailure, parseBodyFields } from "./body.server";
import { SUBMISSION_FIELD } from "./submission";
import { invalid, type Result } from "~/models/refusal";

// The one way the kid and moment forms (pages and /api) read a body that may carry a photo:
// multipart goes through the image module's streaming parser (the file never sits in memory, a
// text part named `image` is ignored); JSON and urlencoded bodies are accepted too (no photo then).
// Validation uses the form's zod schema; IMAGE_PRESENT stands in for an uploaded file. Such a body
// that cannot be read is a BodyFailure; app/api/body.server.ts answers it (readPhotoBody, readPhotoForm).

type Errors = Record<string, string[]>;

export type PhotoBody = {
  /** Text fields as the schemas expect them (strings; empty → missing). */
  fields: Record<string, string | undefined>;
  /** The uploaded photo (a temp file the caller must consume or discard), or null. */
  file: UploadedFile | null;
  /** Problems found while reading: `image` (too big), a text field (too long), `message` (the request). */
  errors: Errors;
};

export async function parsePhotoBody(request: Request): Promise<PhotoBody | BodyFailure> {
  const type = (request.headers.get("Content-Type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const { fields, file, errors } = await parseMultipart(request);
    return { fields: clean(fields), file, errors };
  }
  const fields = await parseBodyFields(request);
  return fields instanceof BodyFailure ? fields : { fields: clean(fields), file: null, errors: {} };
}

function clean(raw: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === IMAGE_FIELD) continue; // photos only ever come from file parts
    out[key] = asFormValue(value);
  }
  return out;
}

function merge(...lists: (Errors | null | undefined)[]): Errors {
  const out: Errors = {};
  for (const list of lists) {
    for (const [key, messages] of Object.entries(list ?? {})) {
      if (!messages?.length) continue;
      const target = (out[key] ??= []);
      for (const m of messages) if (!target.includes(m)) target.push(m);
    }
  }
  return out;
}

/**
 * When the text fields are wrong, the photo is not processed; a quick look at it still lets the
 * answer name an unacceptable file together with the other problems.
 */
async function earlyImageErrors(body: PhotoBody): Promise<Errors> {
  if (!body.file || body.errors[IMAGE_FIELD]) return {};
  const refusal = await checkImage(body.file.path);
  return refusal?.kind === "invalid" ? (refusal.fieldErrors ?? {}) : {};
}

/**
 * What the schema sees for `image`: IMAGE_PRESENT when a file came, or when one came and was refused
 * on reading (too big, empty): then the reader's message is the one shown, not "Image is required".
 */
function imageValue(body: PhotoBody): string | undefined {
  return body.file || body.errors[IMAGE_FIELD]?.length ? IMAGE_PRESENT : undefined;
}

/** API validation: the schema's output, or a refusal (invalid) with `{field: [messages]}` for envelope (B). */
export async function validateBody<S extends z.ZodType>(body: PhotoBody, schema: S): Promise<Result<{ value: z.output<S> }>> {
  const values = { ...body.fields, image: imageValue(body) };
  const parsed = schema.safeParse(values);
  const schemaErrors: Errors = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path.length ? String(issue.path[0]) : "message";
      (schemaErrors[key] ??= []).push(issue.message);
    }
  }
  const errors = merge(schemaErrors, body.errors);
  if (parsed.success && !Object.keys(errors).length) return { ok: true, value: parsed.data };
  return invalid(undefined, merge(errors, await earlyImageErrors(body)));
}

export type PhotoFormResult<Output> = {
  file: UploadedFile | null;
  /** The form's one-time submission token (app/forms/submission.ts), as sent; undefined when none. */
  submissionToken: string | undefined;
  /** The validated value, or null when something is wrong (answer 400 with `reply()`). */
  value: Output | null;
  /** The conform result for the page: every error (schema, upload, and `extra`, e.g. the image module's). */
  reply(extra?: Errors): SubmissionResult<string[]>;
};

/** Page actions: read the multipart form and validate it with conform, like the browser does. */
export async function parsePhotoForm<S extends z.ZodType>(
  request: Request,
  schema: S,
): Promise<PhotoFormResult<z.output<S>> | BodyFailure> {
  const body = await parsePhotoBody(request);
  if (body instanceof BodyFailure) return body;
  const formData = new FormData();
  for (const [key, value] of Object.entries(body.fields)) if (value !== undefined) formData.set(key, value);
  const image = imageValue(body);
  if (image) formData.set(IMAGE_FIELD, image);
  const submission = parseWithZod(formData, { schema });
  const { message: requestErrors, ...fieldUploadErrors } = body.errors;
  const valid = submission.status === "success" && !Object.keys(body.errors).length;
  const imageErrors = valid ? {} : await earlyImageErrors(body);
  return {
    file: body.file,
    submissionToken: body.fields[SUBMISSION_FIELD],
    value: valid ? (submission.value as z.output<S>) : null,
    reply(extra) {
      const schemaErrors = submission.status === "success" ? {} : (submission.error ?? {});
      const { "": formLevel, ...fieldLevel } = schemaErrors as Record<string, string[] | null>;
      return submission.reply({
        formErrors: [...(formLevel ?? []), ...(requestErrors ?? [])],
        fieldErrors: merge(fieldLevel as Errors, fieldUploadErrors, imageErrors, extra),
        hideFields: [IMAGE_FIELD],
      });
    },
  };
}
