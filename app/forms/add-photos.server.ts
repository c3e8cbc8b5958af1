import { config } from "~/lib/config.server";
import { addPhotosLimits, IMAGE_FIELD, MULTIPART_MESSAGES } from "~/images/limits";
import { parseMultipart, type SlotFile } from "~/images/multipart.server";
import type { DraftItem, RefusedFile } from "~/models/drafts/add.server";
import { BodyFailure } from "./parse-body.server";
import { ADD_PHOTOS_MESSAGES } from "./add-photos";

// The body of "Add photos" (the page's form and POST /api/kids/{id}/imports with files;
// docs/decisions/0065-drafts.md): up to ADD_PHOTOS_MAX_FILES file parts named `image`, streamed to
// temporary files. A file the parser refused (too big) is listed with its reason, the others go on.

export type AddPhotosBody = {
  items: DraftItem[];
  /** Files the parser refused (too big), with why. */
  refused: RefusedFile[];
  /** The request's problem (no photo, too many), answered 400 with nothing added; or null. */
  problem: string | null;
  /** 0, or the wait past the hourly photo limit (answered 429, nothing kept). */
  photoLimitWaitMs: number;
  files: SlotFile[];
  fields: Record<string, string>;
};

/** Reads an "Add photos" body. A body that cannot be read at all: BodyFailure. */
export async function readAddPhotosBody(request: Request, uploader: number): Promise<AddPhotosBody | BodyFailure> {
  const max = config().addPhotosMaxFiles;
  const body = await parseMultipart(request, addPhotosLimits(max), { maxFiles: max, uploader });
  const { files, errors, photoLimitWaitMs, fields } = body;
  const request_ = errors.message?.[0];
  const tooMany = (errors[IMAGE_FIELD] ?? []).includes(MULTIPART_MESSAGES.tooManyPhotos);
  const refused: RefusedFile[] = [];
  for (const [field, messages] of Object.entries(errors)) {
    const slot = field === IMAGE_FIELD ? 1 : Number(/^image_(\d+)$/.exec(field)?.[1] ?? 0);
    if (!slot || (field === IMAGE_FIELD && tooMany)) continue;
    refused.push({ name: `File ${slot}`, reason: messages[0] ?? "" });
  }
  const items = files.map(({ file }) => ({ name: file.filename || "photo", path: file.path }));
  if (request_ && !photoLimitWaitMs) {
    await Promise.all(files.map((f) => f.file.discard()));
    return new BodyFailure(request_ === MULTIPART_MESSAGES.bodyTooBig ? 413 : 400, request_);
  }
  let problem: string | null = null;
  if (photoLimitWaitMs) problem = null;
  else if (tooMany) problem = ADD_PHOTOS_MESSAGES.tooMany(max);
  else if (!files.length && !refused.length) problem = ADD_PHOTOS_MESSAGES.none;
  return { items, refused, problem, photoLimitWaitMs, files, fields };
}
