import fs from "node:fs";
import fsp from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { config } from "~/lib/config.server";
import { isBodyTooLarge } from "~/lib/request-state";
import { BODY_MESSAGES, IMAGE_FIELD, MULTIPART_MESSAGES } from "~/images/limits";
import { parseMultipart } from "~/images/multipart.server";
import { newTempUploadPath, uploadedFile, uploadsTempDir, type UploadedFile } from "~/images/temp-uploads.server";
import { BodyFailure } from "~/forms/parse-body.server";
import { ARCHIVE_FIELD } from "./archive.server";

// The body that brings an archive to import (docs/decisions/0066-imports.md): the "Move in" form
// (multipart, its file part named `archive`, and a `kid_id` field), or on /api the same multipart
// or the ZIP itself (`Content-Type: application/zip`). Either way the archive streams to a private
// temp upload file (removed with the request), up to IMPORT_MAX_MB.

const MB = 1024 * 1024;

/** The most body bytes an archive's request may carry: IMPORT_MAX_MB and room for the form's few fields. */
export function archiveBodyBytes(): number {
  return config().importMaxMb * MB + 64 * 1024;
}

export const ARCHIVE_BODY_MESSAGES = {
  tooBig: (mb: number) => `The archive must be ${mb.toLocaleString("en")} MB or smaller. Nothing was imported.`,
  notZip: "Send the archive as multipart/form-data (a file part named archive) or as application/zip.",
} as const;

export type ArchiveBody = {
  file: UploadedFile | null;
  fields: Record<string, string>;
  /** The archive's problem (too big), for its field; or null. */
  problem: string | null;
};

/** Is this body the ZIP itself? */
export function isZipBody(request: Request): boolean {
  return /^application\/(zip|x-zip-compressed)\b/i.test(request.headers.get("Content-Type") ?? "");
}

/** Reads an archive's body; a body that cannot be read at all: BodyFailure (400, 413, or 415 as 400). */
export async function readArchiveBody(request: Request): Promise<ArchiveBody | BodyFailure> {
  const maxMb = config().importMaxMb;
  if (isZipBody(request)) return readZipBody(request, maxMb);
  const bytes = archiveBodyBytes();
  const body = await parseMultipart(
    request,
    {
      maxFileBytes: maxMb * MB,
      maxBodyBytes: bytes,
      maxDrainBytes: bytes + 16 * MB,
      maxParts: 10,
      maxFieldBytes: 1024,
    },
    { maxFiles: 1, fileField: ARCHIVE_FIELD },
  );
  const { file, fields, errors } = body;
  const whole = errors.message?.[0];
  if (whole) {
    await file?.discard();
    return new BodyFailure(whole === MULTIPART_MESSAGES.bodyTooBig ? 413 : 400, whole);
  }
  const tooBig = (errors[IMAGE_FIELD] ?? []).length > 0;
  return { file, fields, problem: tooBig ? ARCHIVE_BODY_MESSAGES.tooBig(maxMb) : null };
}

/** The ZIP itself as the body: streamed to a temp file, refused (413) past the limit. */
async function readZipBody(request: Request, maxMb: number): Promise<ArchiveBody | BodyFailure> {
  if (!request.body) return new BodyFailure(400, BODY_MESSAGES.unreadable);
  await fsp.mkdir(uploadsTempDir(), { recursive: true, mode: 0o700 });
  const path = newTempUploadPath();
  const file = uploadedFile(path, 0, "archive.zip", "application/zip");
  let size = 0;
  const max = maxMb * MB;
  try {
    await pipeline(
      Readable.fromWeb(request.body as import("node:stream/web").ReadableStream<Uint8Array>),
      async function* (source: AsyncIterable<Uint8Array>) {
        for await (const chunk of source) {
          size += chunk.byteLength;
          if (size > max) throw new TooBig();
          yield chunk;
        }
      },
      fs.createWriteStream(path, { flags: "wx", mode: 0o600 }),
    );
  } catch (error) {
    await file.discard();
    if (error instanceof TooBig || isBodyTooLarge(error))
      return new BodyFailure(413, ARCHIVE_BODY_MESSAGES.tooBig(maxMb));
    return new BodyFailure(400, BODY_MESSAGES.unreadable);
  }
  if (!size) {
    await file.discard();
    return { file: null, fields: {}, problem: null };
  }
  return { file: { ...file, size }, fields: {}, problem: null };
}

class TooBig extends Error {}
