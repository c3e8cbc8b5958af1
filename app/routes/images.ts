import fsp from "node:fs/promises";
import type { LoaderFunctionArgs } from "react-router";
import { createReadableStreamFromReadable } from "@react-router/node";
import { getUser } from "~/web/auth.server";
import { canViewImage } from "~/models/access.server";
import { findImageByKey, imageFilePath, KEY_PATTERN } from "~/images/storage.server";

// GET /images/<key>/<width>.webp: the only way photo bytes leave the server.
//
// Who may see which photo is the access module's (canViewImage in app/models/access.server.ts):
// profile pictures any signed-in user, kid and moment photos the owner and the owner's accepted
// friends. Everything else (signed out, not allowed, unknown
// key or width, malformed name, missing file) gets the same plain 404, so a URL never reveals
// whether a photo exists. Files under a key never change (a replaced photo gets a new key), so
// responses are immutable; they are `private` so no shared cache keeps them, and a 304 is only
// ever given after the same authorization check.

const FILE_PATTERN = /^([1-9][0-9]{0,4})\.webp$/;

function notFound(): Response {
  return new Response("Not found", {
    status: 404,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
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
  const match = FILE_PATTERN.exec(params.file ?? "");
  if (!KEY_PATTERN.test(key) || !match) return notFound();
  const width = Number(match[1]);

  const viewer = await getUser(request);
  if (!viewer) return notFound();
  const image = await findImageByKey(key);
  if (!image || !image.widths.includes(width) || !(await canViewImage(viewer.id, image))) return notFound();

  const filePath = imageFilePath(key, width);
  if (!filePath) return notFound();

  const etag = `"${key}-${width}"`;
  const headers = new Headers({
    "Content-Type": "image/webp",
    "Cache-Control": "private, max-age=31536000, immutable",
    ETag: etag,
    Vary: "Cookie",
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Content-Disposition": "inline",
  });
  if (matches(request.headers.get("If-None-Match"), etag)) {
    return new Response(null, { status: 304, headers });
  }

  // Open first, then stat the open file: no window in which it could change between the two.
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(filePath, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") console.error(`[images] cannot open ${filePath}`, error);
    else console.error(`[images] file missing for image ${key} width ${width}`);
    return notFound();
  }
  try {
    const stat = await handle.stat();
    headers.set("Content-Length", String(stat.size));
    if (request.method.toUpperCase() === "HEAD") {
      await handle.close();
      return new Response(null, { status: 200, headers });
    }
    const stream = handle.createReadStream({ autoClose: true });
    // a client that goes away mid-transfer cancels the web stream, which destroys this one with an
    // error: without a listener that error would bring the whole process down
    stream.on("error", () => {});
    return new Response(createReadableStreamFromReadable(stream), { status: 200, headers });
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}
