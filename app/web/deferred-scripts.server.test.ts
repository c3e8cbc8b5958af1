import { describe, expect, it } from "vitest";
import { deferScripts } from "./deferred-scripts.server";
import { commentError, COMMENT_MAX, COMMENT_MESSAGES } from "~/forms/comment";

// The document as React Router's <Scripts /> writes it (app/root.tsx), shortened.
const DOC =
  '<!DOCTYPE html><html lang="en"><head><link rel="modulepreload" href="/assets/manifest-1.js" nonce="abc"/>' +
  '<link rel="modulepreload" href="/assets/entry.client-1.js" nonce="abc"/><link rel="stylesheet" href="/assets/root-1.css"/></head>' +
  '<body><main>content</main><script nonce="abc">window.__reactRouterContext = {};</script>' +
  '<script nonce="abc" type="module" async="">import "/assets/manifest-1.js";\nimport * as route0 from "/assets/root-1.js";</script>' +
  '<script nonce="abc">(loader)</script></body></html>';

describe("deferScripts", () => {
  it("makes the modulepreload links and React Router's module script inert, and nothing else", () => {
    const out = deferScripts(DOC);
    expect(out).not.toContain('rel="modulepreload"');
    expect(out.match(/rel="x-deferred-modulepreload" href="[^"]+"/g)).toEqual([
      'rel="x-deferred-modulepreload" href="/assets/manifest-1.js"',
      'rel="x-deferred-modulepreload" href="/assets/entry.client-1.js"',
    ]);
    expect(out).not.toContain('type="module"');
    expect(out).toContain('<script nonce="abc" type="text/x-deferred-module" data-deferred-module="">import "/assets/manifest-1.js";');
    // the stylesheet, the content and the classic scripts are untouched
    expect(out).toContain('<link rel="stylesheet" href="/assets/root-1.css"/>');
    expect(out).toContain('<script nonce="abc">window.__reactRouterContext = {};</script>');
    expect(out.replace(/x-deferred-modulepreload/g, "modulepreload").replace(' type="text/x-deferred-module" data-deferred-module=""', ' type="module" async=""')).toBe(DOC);
  });

  it("leaves a document without React Router's module script as it is", () => {
    const other = '<html><head><link rel="modulepreload" href="/x.js"/></head><body><script type="module" src="/y.js"></script></body></html>';
    expect(deferScripts(other)).toBe(other);
  });
});

describe("commentError (plain code, as the browser runs it)", () => {
  it("trims, then wants 1 to COMMENT_MAX characters", () => {
    expect(commentError(undefined)).toBe(COMMENT_MESSAGES.required);
    expect(commentError(42)).toBe(COMMENT_MESSAGES.required);
    expect(commentError("   \n ")).toBe(COMMENT_MESSAGES.required);
    expect(commentError(" hi ")).toBeNull();
    expect(commentError(` ${"a".repeat(COMMENT_MAX)} `)).toBeNull();
    expect(commentError("a".repeat(COMMENT_MAX + 1))).toBe(COMMENT_MESSAGES["too-long"]);
  });
});
