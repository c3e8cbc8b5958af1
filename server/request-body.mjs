// @ts-check
// A request body as a web stream with a limit, whatever its framing (Content-Length or chunked).
// See docs/decisions/0019-request-hardening.md.

/**
 * @typedef {{
 *   stream: ReadableStream<Uint8Array>,
 *   discard: () => void,
 * }} LimitedBody
 */

/**
 * The body of `req`, never more than `limit` bytes: past it the stream fails with `tooLarge()` and
 * `onTooLarge` is called, so every reader (formData, text, json, the multipart parser) stops
 * there. Nothing is held here beyond what a reader has not taken yet (a 64 KiB queue; the socket
 * is paused when it is full).
 *
 * The rest of a body nobody reads (past the limit, after the answer, or never wanted) is read and
 * thrown away (`discard()`), so a browser that is still sending gets our answer instead of a reset
 * connection; past `drainLimit` bytes in all the connection is closed.
 *
 * @param {import("node:http").IncomingMessage} req
 * @param {{ limit: number, drainLimit: number, tooLarge: () => Error, onTooLarge: () => void }} options
 * @returns {LimitedBody}
 */
export function limitedBody(req, { limit, drainLimit, tooLarge, onTooLarge }) {
  let received = 0;
  /** feed: bytes go to the stream; discard: read and dropped; done: the stream is closed */
  let mode = /** @type {"feed" | "discard" | "done"} */ ("feed");
  /** @type {ReadableStreamDefaultController<Uint8Array> | undefined} */
  let controller;

  const discard = () => {
    if (mode === "feed") {
      try {
        controller?.close();
      } catch {
        // already errored or closed
      }
    }
    mode = "discard";
    if (!req.complete) req.resume();
  };

  const stream = new ReadableStream(
    {
      start(c) {
        controller = c;
      },
      pull() {
        if (mode === "feed") req.resume();
      },
      cancel() {
        discard();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );

  req.on("data", (/** @type {Buffer} */ chunk) => {
    received += chunk.length;
    if (received > drainLimit) {
      req.destroy();
      return;
    }
    if (mode !== "feed") return;
    if (received > limit) {
      mode = "discard";
      onTooLarge();
      controller?.error(tooLarge());
      return;
    }
    controller?.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller?.desiredSize ?? 0) <= 0) req.pause();
  });
  req.on("end", () => {
    if (mode === "feed") controller?.close();
    mode = "done";
  });
  const broken = () => {
    if (mode === "feed" && !req.complete) controller?.error(new Error("The request body ended early."));
    if (mode === "feed") mode = "done";
  };
  req.on("error", broken);
  req.on("close", broken);
  return { stream, discard };
}
