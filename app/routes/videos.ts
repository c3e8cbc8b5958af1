import type { Readable } from "node:stream";
import crypto from "node:crypto";
import type { LoaderFunctionArgs } from "react-router";
import { createReadableStreamFromReadable } from "@react-router/node";
import { getUser } from "~/web/auth.server";
import { byteRange } from "~/web/byte-ranges.server";
import { requireVideo } from "~/models/access.server";
import { photoStore } from "~/images/photo-store.server";
import { KEY_PATTERN } from "~/images/storage.server";
import { webVtt } from "~/video/captions";
import { storedFileNotFound } from "~/web/stored-file-responses.server";

// GET /videos/<key>/small.mp4 | large.mp4 | captions.vtt: the only way a clip's bytes leave the
// server (docs/decisions/0064-video-clips.md). The access module decides (requireVideo: whoever may
// see the clip's moment, once the clip is ready); everything else, an unknown key or name included,
// is the same plain 404 as the photo route's. Renditions never change under their key: private,
// immutable, in ranges (206, 416 for a range past the end, Accept-Ranges) streamed from the store
// (disk or S3) as they are read. Captions can be edited: private, revalidated by their tag.

const RENDITIONS = new Set(["small.mp4", "large.mp4"]);

const PLAIN_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Cross-Origin-Resource-Policy": "same-origin",
  Vary: "Cookie",
} as const;

function tagMatches(header: string | null, etag: string): boolean {
  return Boolean(header?.split(",").some((t) => t.trim() === "*" || t.trim().replace(/^W\//, "") === etag));
}

export async function loader({ request, params }: LoaderFunctionArgs): Promise<Response> {
  const key = params.key ?? "";
  const name = params.file ?? "";
  if (!KEY_PATTERN.test(key) || !(RENDITIONS.has(name) || name === "captions.vtt")) return storedFileNotFound();
  const viewer = await getUser(request);
  if (!viewer) return storedFileNotFound();
  const grant = await requireVideo(viewer.id, key);
  if (!grant.ok) return storedFileNotFound();

  if (name === "captions.vtt") {
    // the parent's captions, or (none written) the clip's description as one caption all along
    const text = grant.captions ?? webVtt([{ startMs: 0, text: `[${grant.description}]` }], grant.durationMs) ?? "";
    const etag = `"${crypto.createHash("sha256").update(text).digest("base64url").slice(0, 22)}"`;
    const headers = new Headers({
      ...PLAIN_HEADERS,
      "Content-Type": "text/vtt; charset=utf-8",
      "Cache-Control": "private, no-cache",
      ETag: etag,
    });
    if (tagMatches(request.headers.get("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
    return new Response(request.method.toUpperCase() === "HEAD" ? null : text, { status: 200, headers });
  }

  const etag = `"${key}-${name}"`;
  const headers = new Headers({
    ...PLAIN_HEADERS,
    "Content-Type": "video/mp4",
    "Cache-Control": "private, max-age=31536000, immutable",
    ETag: etag,
    "Accept-Ranges": "bytes",
    "Content-Disposition": "inline",
  });
  const ranged = request.headers.has("Range");
  if (!ranged && tagMatches(request.headers.get("If-None-Match"), etag))
    return new Response(null, { status: 304, headers });

  const store = photoStore();
  try {
    const stat = await store.stat(key, name);
    if (!stat) {
      console.error(`[video] file missing for clip ${key} ${name}`);
      return storedFileNotFound();
    }
    const ifRange = request.headers.get("If-Range");
    const range = byteRange(request.headers.get("Range"), stat.size, ifRange === null || ifRange === etag);
    if (range.kind === "unsatisfiable") {
      headers.set("Content-Range", `bytes */${stat.size}`);
      headers.delete("Cache-Control");
      headers.set("Cache-Control", "no-store");
      return new Response(null, { status: 416, headers });
    }
    const status = range.kind === "part" ? 206 : 200;
    if (request.method.toUpperCase() === "HEAD") {
      const length = range.kind === "part" ? range.end - range.start + 1 : stat.size;
      headers.set("Content-Length", `${length}`);
      if (range.kind === "part") headers.set("Content-Range", `bytes ${range.start}-${range.end}/${stat.size}`);
      return new Response(null, { status, headers });
    }
    const opened = await store.open(
      key,
      name,
      range.kind === "part" ? { start: range.start, end: range.end } : undefined,
    );
    if (!opened) return storedFileNotFound();
    headers.set("Content-Length", `${opened.size}`);
    if (range.kind === "part")
      headers.set("Content-Range", `bytes ${range.start}-${range.start + opened.size - 1}/${opened.totalSize}`);
    return new Response(streamOf(opened.stream, request.signal), { status, headers });
  } catch (error) {
    console.error(`[video] cannot read clip ${key} ${name}`, error);
    return storedFileNotFound();
  }
}

/** The store's stream as a web stream, let go of at once when the browser goes away. */
function streamOf(stream: Readable, signal: AbortSignal): ReadableStream {
  stream.on("error", () => {}); // a cancelled transfer destroys it with an error
  if (signal.aborted) stream.destroy();
  else signal.addEventListener("abort", () => stream.destroy(), { once: true });
  return createReadableStreamFromReadable(stream);
}
