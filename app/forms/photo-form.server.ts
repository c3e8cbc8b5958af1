import { parseWithZod } from "@conform-to/zod/v4";
import type { SubmissionResult } from "@conform-to/react";
import type { z } from "zod";
import { IMAGE_FIELD, IMAGE_PRESENT, type MultipartLimits, UPLOAD_LIMITS, VIDEO_FIELD } from "~/images/limits";
import { config } from "~/lib/config.server";
import { parseMultipart, slotErrorField, type SlotFile, type UploadedFile } from "~/images/multipart.server";
import { checkImage } from "~/images/process.server";
import { asFormValue, BodyFailure, parseBodyFields } from "./parse-body.server";
import { SUBMISSION_FIELD } from "./submission";
import { altField } from "./moment";
import { invalid, type Result } from "~/models/refusal";

// The one way the kid and moment forms (pages and /api) read a body that may carry a photo:
// multipart goes through the image module's streaming parser (the file never sits in memory, a
// text part named `image` is ignored); JSON and urlencoded bodies are accepted too (no photo then).
// Validation uses the form's zod schema; IMAGE_PRESENT stands in for an uploaded file. Such a body
// that cannot be read is a BodyFailure; app/api/read-body.server.ts answers it (readPhotoBody, readPhotoForm).

type Errors = Record<string, string[]>;

export type PhotoBody = {
  /** Text fields as the schemas expect them (strings; empty → missing). */
  fields: Record<string, string | undefined>;
  /** The uploaded photo (a temp file the caller must consume or discard), or null: the first of `files`. */
  file: UploadedFile | null;
  /** Every uploaded photo with its slot (forms that take several: `maxFiles`); the caller consumes or discards them. */
  files: SlotFile[];
  /** Every uploaded clip with its slot (a moment's forms: `maxVideos`); the caller consumes or discards them. */
  videos: SlotFile[];
  /** Problems found while reading: `image` (too big), a text field (too long), `message` (the request). */
  errors: Errors;
  /** 0, or the wait of an uploader past the hourly photo limit (then no photo was kept; answered 429). */
  photoLimitWaitMs: number;
};

/**
 * `uploader`: the signed-in user whose photos count against the hourly limit (every form that
 * takes a photo names them). `maxFiles`: how many `image` parts are kept (1, or MAX_PHOTOS for a
 * moment's forms).
 */
export type PhotoBodyOptions = { uploader: number; maxFiles?: number; maxVideos?: number };

/** The limits of a form that takes clips: one clip of VIDEO_MAX_MB beside the photos. */
function clipLimits(opts: PhotoBodyOptions): Partial<MultipartLimits> {
  if (!opts.maxVideos) return {};
  const clipBytes = config().videoMaxMb * 1024 * 1024;
  return {
    maxVideoBytes: clipBytes,
    maxBodyBytes: UPLOAD_LIMITS.maxBodyBytes + clipBytes,
    maxDrainBytes: UPLOAD_LIMITS.maxDrainBytes + clipBytes,
  };
}

export async function parsePhotoBody(request: Request, opts: PhotoBodyOptions): Promise<PhotoBody | BodyFailure> {
  const type = (request.headers.get("Content-Type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const { fields, file, files, videos, errors, photoLimitWaitMs } = await parseMultipart(
      request,
      clipLimits(opts),
      opts,
    );
    return { fields: clean(fields), file, files, videos, errors, photoLimitWaitMs };
  }
  const fields = await parseBodyFields(request);
  return fields instanceof BodyFailure
    ? fields
    : { fields: clean(fields), file: null, files: [], videos: [], errors: {}, photoLimitWaitMs: 0 };
}

/** Removes every uploaded file of a body not consumed (harmless after they were). */
export async function discardFiles(body: { files: SlotFile[]; videos?: SlotFile[] }): Promise<void> {
  await Promise.all([...body.files, ...(body.videos ?? [])].map((f) => f.file.discard()));
}

const isImageKey = (key: string) => key === IMAGE_FIELD || key.startsWith(`${IMAGE_FIELD}_`);

function clean(raw: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === IMAGE_FIELD || key === VIDEO_FIELD) continue; // photos and clips only ever come from file parts
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
  const out: Errors = {};
  for (const { file, slot } of body.files) {
    const key = slotErrorField(slot);
    if (body.errors[key]) continue;
    const refusal = await checkImage(file.path);
    if (refusal?.kind === "invalid") out[key] = Object.values(refusal.fieldErrors ?? {}).flat();
  }
  return out;
}

/**
 * What the schema sees for `image`: IMAGE_PRESENT when a file came, or when one came and was refused
 * on reading (too big, empty): then the reader's message is the one shown, not "Image is required".
 */
function imageValue(body: PhotoBody): string | undefined {
  return body.files.length || Object.keys(body.errors).some(isImageKey) ? IMAGE_PRESENT : undefined;
}

/** The same for `video`: a clip came (or came and was refused on reading). */
function videoValue(body: PhotoBody): string | undefined {
  const isVideoKey = (key: string) => key === VIDEO_FIELD || key.startsWith(`${VIDEO_FIELD}_`);
  return body.videos.length || Object.keys(body.errors).some(isVideoKey) ? IMAGE_PRESENT : undefined;
}

/** API validation: the schema's output, or a refusal (invalid) with `{field: [messages]}` for envelope (B). */
export async function validateBody<S extends z.ZodType>(
  body: PhotoBody,
  schema: S,
): Promise<Result<{ value: z.output<S> }>> {
  const values = { ...body.fields, image: imageValue(body), video: videoValue(body) };
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
  /** Every uploaded photo with its slot (see PhotoBody). */
  files: SlotFile[];
  /** Every uploaded clip with its slot (see PhotoBody). */
  videos: SlotFile[];
  /** The text fields as sent (a moment's photo fields: app/forms/moment.ts). */
  fields: Record<string, string | undefined>;
  /** The form's one-time submission token (app/forms/submission.ts), as sent; undefined when none. */
  submissionToken: string | undefined;
  /** The validated value, or null when something is wrong (answer `status` with `reply()`). */
  value: Output | null;
  /** 0, or the wait of an uploader past the hourly photo limit: answer 429 with Retry-After. */
  photoLimitWaitMs: number;
  /** The conform result for the page: every error (schema, upload, and `extra`, e.g. the image module's). */
  reply(extra?: Errors): SubmissionResult<string[]>;
};

/** Page actions: read the multipart form and validate it with conform, like the browser does. */
export async function parsePhotoForm<S extends z.ZodType>(
  request: Request,
  schema: S,
  opts: PhotoBodyOptions,
): Promise<PhotoFormResult<z.output<S>> | BodyFailure> {
  const body = await parsePhotoBody(request, opts);
  if (body instanceof BodyFailure) return body;
  const formData = new FormData();
  for (const [key, value] of Object.entries(body.fields)) if (value !== undefined) formData.set(key, value);
  const image = imageValue(body);
  if (image) formData.set(IMAGE_FIELD, image);
  const video = videoValue(body);
  if (video) formData.set(VIDEO_FIELD, video);
  const submission = parseWithZod(formData, { schema });
  const { message: requestErrors, ...fieldUploadErrors } = body.errors;
  const valid = submission.status === "success" && !Object.keys(body.errors).length;
  const imageErrors = valid ? {} : await earlyImageErrors(body);
  return {
    file: body.file,
    files: body.files,
    videos: body.videos,
    fields: body.fields,
    submissionToken: body.fields[SUBMISSION_FIELD],
    value: valid ? (submission.value as z.output<S>) : null,
    photoLimitWaitMs: body.photoLimitWaitMs,
    reply(extra) {
      const schemaErrors = submission.status === "success" ? {} : (submission.error ?? {});
      const { "": formLevel, ...fieldLevel } = schemaErrors as Record<string, string[] | null>;
      return submission.reply({
        formErrors: [...(formLevel ?? []), ...(requestErrors ?? [])],
        fieldErrors: merge(fieldLevel as Errors, fieldUploadErrors, imageErrors, extra),
        hideFields: [IMAGE_FIELD, VIDEO_FIELD],
      });
    },
  };
}

// ---- the photos of a moment's form or /api call (app/forms/moment.ts names the fields) ----

const PHOTO_EDIT_FIELD = /^photo_([1-9][0-9]{0,15})_(position|alt|remove)$/;

/**
 * The photos a moment's form or /api body sent: each file with its slot's alt text (`alt_<slot>`),
 * and what it says of the photos the moment has (`photo_<id>_position`, `_alt`, `_remove`; present
 * only when some such field was sent, or always with `edits`). A position that is not a whole
 * number leaves the photo in its place.
 */
export function momentPhotosFrom(
  upload: { files: SlotFile[]; videos?: SlotFile[]; fields: Record<string, string | undefined> },
  opts: { edits?: boolean } = {},
): {
  added: { file: UploadedFile; alt: string; slot: number }[];
  edits?: { id: number; position?: number; alt?: string; remove?: boolean }[];
  clips: { file: UploadedFile; description: string; slot: number }[];
  removeClips: number[];
  clipCaptions: { id: number; text: string }[];
} {
  const added = upload.files.map(({ file, slot }) => ({ file, slot, alt: upload.fields[altField(slot)] ?? "" }));
  // clips (docs/decisions/0064-video-clips.md): `video_description[_<n>]` with the n-th clip, and
  // `clip_<id>_remove` for a clip the moment has
  const clips = (upload.videos ?? []).map(({ file, slot }) => ({
    file,
    slot,
    description: upload.fields[slot === 1 ? "video_description" : `video_description_${slot}`] ?? "",
  }));
  const removeClips = Object.keys(upload.fields).flatMap((name) => {
    const m = /^clip_([1-9][0-9]{0,15})_remove$/.exec(name);
    return m ? [Number(m[1])] : [];
  });
  const clipCaptions = Object.entries(upload.fields).flatMap(([name, value]) => {
    const m = /^clip_([1-9][0-9]{0,15})_captions$/.exec(name);
    return m ? [{ id: Number(m[1]), text: value ?? "" }] : [];
  });
  const edits = new Map<number, { id: number; position?: number; alt?: string; remove?: boolean }>();
  for (const [name, value] of Object.entries(upload.fields)) {
    const m = PHOTO_EDIT_FIELD.exec(name);
    if (!m) continue;
    const id = Number(m[1]);
    const edit = edits.get(id) ?? { id };
    if (m[2] === "position") {
      const n = Number(value?.trim());
      if (Number.isInteger(n)) edit.position = n;
    } else if (m[2] === "alt") edit.alt = value ?? "";
    else edit.remove = value !== undefined;
    edits.set(id, edit);
  }
  return edits.size || opts.edits
    ? { added, edits: [...edits.values()], clips, removeClips, clipCaptions }
    : { added, clips, removeClips, clipCaptions };
}
