// Scripts after the content (docs/decisions/0035-slow-networks.md). React Router's <Scripts />
// writes a <link rel="modulepreload"> for every module of the page (hoisted into <head>) and an
// inline module script that imports them: on a thin link the browser fetches all of them at once,
// and they share the bandwidth with the stylesheets and the first photos, so the page paints later
// with JavaScript on than off. The document is rewritten once, as a whole, before it is sent:
// - the modulepreload links become inert (`rel="x-deferred-modulepreload"`), and
// - the inline module script becomes inert (`type="text/x-deferred-module"`);
// DEFERRED_SCRIPTS_LOADER (app/components/deferred-scripts.ts, rendered after <Scripts />) turns
// them back on once the stylesheets are in and the page's priority photos have loaded (or failed).
// Without JavaScript nothing changes: no script runs either way.

// The rewrite works on the document's bytes as React wrote them (no decoding to a string and back:
// that cost about 4 % of a 20-moment page's CPU, docs/decisions/0037-kid-page-cost.md).
const PRELOAD = Buffer.from('<link rel="modulepreload"');
const PRELOAD_INERT = Buffer.from('<link rel="x-deferred-modulepreload"');
/** React Router's inline module script, as React writes it: `<script( nonce="…")? type="module" async="">`. */
const SCRIPT_OPEN = Buffer.from("<script");
const MODULE_TAIL = Buffer.from(' type="module" async="">');
const NONCE = /^ nonce="[^"]*"$/;

/** Where React Router's module script starts and ends in `doc`, with its nonce attribute; null when it has none. */
function moduleScript(doc: Buffer): { start: number; end: number; nonce: string } | null {
  for (let at = doc.indexOf(MODULE_TAIL); at >= 0; at = doc.indexOf(MODULE_TAIL, at + 1)) {
    const open = doc.lastIndexOf(SCRIPT_OPEN, at);
    if (open < 0 || at - open > 200) continue;
    const between = doc.toString("latin1", open + SCRIPT_OPEN.length, at);
    if (between === "" || NONCE.test(between)) return { start: open, end: at + MODULE_TAIL.length, nonce: between };
  }
  return null;
}

/** The document (bytes) with its scripts made inert until the loader starts them. The same bytes when it has none. */
export function deferScriptsIn(doc: Buffer): Buffer {
  const script = moduleScript(doc);
  if (!script) return doc; // not React Router's document (or a new way of writing it): as is
  const parts: Buffer[] = [];
  let from = 0;
  const cut = (start: number, end: number, replacement: Buffer) => {
    parts.push(doc.subarray(from, start), replacement);
    from = end;
  };
  const inertScript = Buffer.from(
    `<script${script.nonce} type="text/x-deferred-module" data-deferred-module="">`,
    "latin1",
  );
  let scriptDone = false;
  for (let at = doc.indexOf(PRELOAD); at >= 0; at = doc.indexOf(PRELOAD, at + PRELOAD.length)) {
    if (!scriptDone && script.start < at) {
      cut(script.start, script.end, inertScript);
      scriptDone = true;
    }
    cut(at, at + PRELOAD.length, PRELOAD_INERT);
  }
  if (!scriptDone) cut(script.start, script.end, inertScript);
  parts.push(doc.subarray(from));
  return Buffer.concat(parts);
}

/** The same rewrite of a document as a string. */
export function deferScripts(html: string): string {
  return deferScriptsIn(Buffer.from(html, "utf8")).toString("utf8");
}
