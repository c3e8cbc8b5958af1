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

const PRELOAD = /<link rel="modulepreload"/g;
/** React Router's inline module script, as React writes it (nonce first, then type, then async). */
const MODULE_SCRIPT = /<script( nonce="[^"]*")? type="module" async="">/;

/** The document with its scripts made inert until the loader starts them. Unchanged when it has none. */
export function deferScripts(html: string): string {
  if (!MODULE_SCRIPT.test(html)) return html; // not React Router's document (or a new way of writing it): as is
  return html
    .replace(PRELOAD, '<link rel="x-deferred-modulepreload"')
    .replace(MODULE_SCRIPT, (_m, nonce: string | undefined) => `<script${nonce ?? ""} type="text/x-deferred-module" data-deferred-module="">`);
}
