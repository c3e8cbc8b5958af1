import { Writable } from "node:stream";
import type { EntryContext, RouterContextProvider } from "react-router";
import { ServerRouter } from "react-router";
import type { RenderToPipeableStreamOptions } from "react-dom/server";
import { renderToPipeableStream } from "react-dom/server";
import { NonceProvider } from "./components/nonce";
import { isClientError, isUnavailable } from "./web/request-guard.server";
import { startDevBackground } from "./jobs/dev-background.server";
import { config } from "./lib/config.server";
import { deferScriptsIn } from "./web/deferred-scripts.server";
import { documentNonce } from "./web/security.server";

export const streamTimeout = 5_000;

/**
 * DEFER_SCRIPTS=off sends the document's scripts as React Router writes them: only to measure what
 * the deferral is worth (`BENCH_NETWORK_DEFER_AB=1 npm run bench:network`,
 * docs/decisions/0035-slow-networks.md). Read once, at start.
 */
const deferScripts = config().deferScripts;

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const nonce = documentNonce(loadContext);

  return new Promise((resolve, reject) => {
    let shellRendered = false;
    // Everyone gets the whole document at once: pages are small, and a complete document is what
    // a slow phone with JavaScript off needs (no streamed fragments waiting on scripts).
    const readyOption: keyof RenderToPipeableStreamOptions = "onAllReady";

    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(() => abort(), streamTimeout + 1000);

    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        [readyOption]() {
          shellRendered = true;
          // the whole document is ready (onAllReady): collected, its scripts deferred after the
          // content (app/web/deferred-scripts.server.ts), answered as one buffer (no web stream
          // in between: docs/decisions/0037-kid-page-cost.md)
          const chunks: Buffer[] = [];
          const body = new Writable({
            write(chunk: Buffer, _encoding, callback) {
              chunks.push(chunk);
              callback();
            },
          });
          body.on("finish", () => {
            clearTimeout(timeoutId);
            timeoutId = undefined;
            responseHeaders.set("Content-Type", "text/html; charset=utf-8");
            const doc = Buffer.concat(chunks);
            const html = (deferScripts ? deferScriptsIn(doc) : doc) as Uint8Array<ArrayBuffer>;
            resolve(new Response(html, { headers: responseHeaders, status: responseStatusCode }));
          });
          body.on("error", reject);
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) console.error(error);
        },
      },
    );
  });
}

/**
 * Errors thrown in loaders/actions: logged with their stack on the server, never sent. What the
 * client got wrong (a body, a method) is not our error: it is answered 4xx and the server logs one
 * line for it (app/web/request-guard.server.ts).
 */
export function handleError(
  error: unknown,
  { request, context }: { request: Request; context?: RouterContextProvider },
) {
  if (request.signal.aborted || isClientError(error, context) || isUnavailable(error, context)) return;
  console.error(`[app] ${request.method} ${new URL(request.url).pathname}`, error);
}

// Used by server/index.mjs (the process that serves this build) and the seed script.
export { clientAddressContext } from "./lib/context";
export { BodyTooLargeError, newRequestState, requestStateContext } from "./lib/request-state";
export { BODY_LIMITS, bodyLimit, pathKind } from "./web/request-guard.server";
export { isCrossSiteRequest } from "./web/security.server";
export { seedDemo, seedIfEmpty } from "../db/seed/demo.server";
// The periodic jobs (app/jobs/maintenance.server.ts): each once per period across every process and
// machine; server/index.mjs asks on a timer.
export { runScheduledJobs } from "./jobs/maintenance.server";
export { databaseReady } from "./lib/db.server";
export { startMailSender } from "./mail/sender.server";
export { startClipPreparer } from "./video/worker.server";
export { startDigestScheduler } from "./mail/digest.server";
export { noteListeningPort } from "./lib/config.server";

// `npm run dev` (react-router dev) has no server/index.mjs to start the mail sender, the digest
// scheduler and the periodic jobs: start them here, once per process (app/jobs/dev-background.server.ts).
// import.meta.env.DEV is false in the production build, so the server of `npm start` never does.
if (import.meta.env?.DEV && !process.env.VITEST) void startDevBackground();
