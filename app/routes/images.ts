import type { Readable } from "node:stream";
import type { LoaderFunctionArgs } from "react-router";
import { createReadableStreamFromReadable } from "@react-router/node";
import { getUser } from "~/web/auth.server";
import { canViewImage } from "~/models/access.server";
import { photoStore } from "~/images/photo-store.server";
import { findImageByKey, KEY_PATTERN, photoFileName } from "~/images/storage.server";
import { ORIGINAL_FILE } from "~/images/photo";
import { originalFileName } from "~/models/photo-downloads.server";
import { storedFileNotFound } from "~/web/stored-file-responses.server";

// GET /images/<key>/<width>.webp: the only way photo bytes leave the server; and
// GET /images/<key>/original.jpg, a moment photo's full-size copy, as a download (an attachment
// named after the moment; docs/decisions/0063-full-size-originals.md) with the same access rule
// and caching. A photo without a full-size copy answers that URL with the same plain 404.
//
// Who may see which photo is the access module's (canViewImage in app/models/access.server.ts):
// profile pictures any signed-in user, kid and moment photos the owner and the owner's accepted
// friends. Everything else (signed out, not allowed, unknown
// key or width, malformed name, missing file) gets the same plain 404, so a URL never reveals
// whether a photo exists. Files under a key never change (a replaced photo gets a new key), so
// responses are immutable; they are `private` so no shared cache keeps them, and a 304 is only
// ever given after the same authorization check. The bytes come from the photo store (local disk
// or S3, app/images/photo-store.server.ts) and are streamed through here either way: no public or
// presigned storage URL is ever handed to a browser (docs/decisions/0015-photo-store.md).

const FILE_PATTERN = /^([1-9][0-9]{0,4})\.webp$/;

/** `attachment` with the name as plain ASCII and, for any other letters, RFC 6266's UTF-8 form. */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Weak comparison (RFC 9110 §13.1.2): does If-None-Match name this entity tag? */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag.replace(/^W\//, "") === opaque;
  });
}

export async function loader({ request, params }: LoaderFunctionArgs): Promise<Response> {
  const key = params.key ?? "";
  const original = params.file === ORIGINAL_FILE;
  const match = FILE_PATTERN.exec(params.file ?? "");
  if (!KEY_PATTERN.test(key) || !(match || original)) return storedFileNotFound();
  const width = original ? 0 : Number(match![1]);

  const viewer = await getUser(request);
  if (!viewer) return storedFileNotFound();
  const image = await findImageByKey(key);
  const stored = original ? image?.original : image?.widths.includes(width);
  if (!image || !stored || !(await canViewImage(viewer.id, image))) return storedFileNotFound();

  const name = original ? ORIGINAL_FILE : photoFileName(width);
  if (!name) return storedFileNotFound();

  const etag = `"${key}-${original ? "original" : width}"`;
  const headers = new Headers({
    "Content-Type": original ? "image/jpeg" : "image/webp",
    "Cache-Control": "private, max-age=31536000, immutable",
    ETag: etag,
    Vary: "Cookie",
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Content-Disposition": original ? attachment(await originalFileName(image.id)) : "inline",
  });
  if (matches(request.headers.get("If-None-Match"), etag)) {
    return new Response(null, { status: 304, headers });
  }

  // HEAD: the size only; GET: the store opens the file and tells its size from what it opened
  // (disk: fstat of the open handle; S3: the GetObject answer), so the length matches the bytes
  const store = photoStore();
  let file: { size: number; stream?: Readable } | null;
  try {
    file = request.method.toUpperCase() === "HEAD" ? await store.stat(key, name) : await store.open(key, name);
  } catch (error) {
    console.error(`[images] cannot read image ${key} file ${name}`, error);
    return storedFileNotFound();
  }
  if (!file) {
    console.error(`[images] file missing for image ${key} file ${name}`);
    return storedFileNotFound();
  }
  headers.set("Content-Length", `${file.size}`);
  const { stream } = file;
  if (!stream) return new Response(null, { status: 200, headers });
  // a client that goes away mid-transfer cancels the web stream, which destroys this one with an
  // error: without a listener that error would bring the whole process down
  stream.on("error", () => {});
  // a request abandoned before its body is read (the browser navigated away) lets go of the file at
  // once; with S3 that is a pooled connection to the bucket
  if (request.signal.aborted) stream.destroy();
  else request.signal.addEventListener("abort", () => stream.destroy(), { once: true });
  return new Response(createReadableStreamFromReadable(stream), { status: 200, headers });
}
