import { describe, expect, it } from "vitest";
import { deferScripts, deferScriptsIn } from "./deferred-scripts.server";
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
    expect(out).toContain(
      '<script nonce="abc" type="text/x-deferred-module" data-deferred-module="">import "/assets/manifest-1.js";',
    );
    // the stylesheet, the content and the classic scripts are untouched
    expect(out).toContain('<link rel="stylesheet" href="/assets/root-1.css"/>');
    expect(out).toContain('<script nonce="abc">window.__reactRouterContext = {};</script>');
    expect(
      out
        .replace(/x-deferred-modulepreload/g, "modulepreload")
        .replace(' type="text/x-deferred-module" data-deferred-module=""', ' type="module" async=""'),
    ).toBe(DOC);
  });

  it("leaves a document without React Router's module script as it is", () => {
    const other =
      '<html><head><link rel="modulepreload" href="/x.js"/></head><body><script type="module" src="/y.js"></script></body></html>';
    expect(deferScripts(other)).toBe(other);
    const bytes = Buffer.from(other);
    expect(deferScriptsIn(bytes)).toBe(bytes);
  });

  it("works on the bytes: text in any script passes through unchanged, with or without a nonce", () => {
    const text = "Léa’s first 🎂 — ça y est";
    const doc = DOC.replace("<main>content</main>", `<main>${text}</main>`).replaceAll(' nonce="abc"', "");
    const out = deferScriptsIn(Buffer.from(doc)).toString("utf8");
    expect(out).toContain(`<main>${text}</main>`);
    expect(out).toContain(
      '<script type="text/x-deferred-module" data-deferred-module="">import "/assets/manifest-1.js";',
    );
    expect(out.match(/x-deferred-modulepreload/g)).toHaveLength(2);
    expect(
      out
        .replace(/x-deferred-modulepreload/g, "modulepreload")
        .replace(' type="text/x-deferred-module" data-deferred-module=""', ' type="module" async=""'),
    ).toBe(doc);
    // a module script tag that is not React Router's (another attribute between) is left alone
    const foreign =
      '<html><head><link rel="modulepreload" href="/x.js"/></head><body><script src="/y.js" type="module" async=""></script></body></html>';
    expect(deferScripts(foreign)).toBe(foreign);
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
