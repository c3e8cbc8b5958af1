// Issue #20.1: the colour tokens of both themes meet WCAG AA for every pair the stylesheets use
// (text 4.5:1, controls and focus 3:1), in every state. Read from app/app.css itself, so a changed
// token that breaks a pair fails here (docs/design.md lists the pairs and their ratios).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const css = fs.readFileSync(path.join(import.meta.dirname, "../../app/app.css"), "utf8");

/** The custom properties declared in the block that starts at `from` (its first `{` … matching `}`). */
function tokensIn(from: number): Record<string, string> {
  const open = css.indexOf("{", from);
  let depth = 0;
  let end = open;
  for (let i = open; i < css.length; i++) {
    if (css[i] === "{") depth++;
    if (css[i] === "}" && --depth === 0) {
      end = i;
      break;
    }
  }
  const out: Record<string, string> = {};
  for (const m of css.slice(open + 1, end).matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)) out[m[1]!] = m[2]!.trim();
  return out;
}

const light = tokensIn(css.indexOf(":root"));
const darkAt = css.indexOf("@media (prefers-color-scheme: dark)");
const dark = { ...light, ...tokensIn(css.indexOf(":root", darkAt)) };

function resolve(theme: Record<string, string>, value: string): string {
  const v = /^var\((--[\w-]+)\)$/.exec(value);
  return v ? resolve(theme, theme[v[1]!] ?? "") : value;
}

function luminance(hex: string): number {
  const h = hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join("")}` : hex;
  expect(h, `a hex colour: ${hex}`).toMatch(/^#[0-9a-f]{6}$/i);
  const [r, g, b] = [1, 3, 5].map((i) => {
    const s = parseInt(h.slice(i, i + 2), 16) / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function ratio(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

// [foreground, background, what it is]
const TEXT: [string, string, string][] = [
  ["--ink", "--bg", "body text"],
  ["--ink", "--card", "text on cards, dialogs, header"],
  ["--ink", "--surface-2", "comment bubble, read-only field"],
  ["--ink", "--field-bg", "text in a field"],
  ["--muted", "--bg", "hints, dates, footer"],
  ["--muted", "--card", "hints and dates on cards"],
  ["--muted", "--surface-2", "edited mark in a comment"],
  ["--brand-dark", "--bg", "links"],
  ["--brand-dark", "--card", "links on cards; secondary and quiet buttons at rest"],
  ["--brand", "--bg", "link hover"],
  ["--brand", "--card", "link hover on cards"],
  ["--brand-dark", "--brand-tint", "secondary and quiet buttons on hover/active"],
  ["--brand-dark", "--brand-tint-strong", "liked button, open comments"],
  ["--on-brand", "--brand-dark", "primary button at rest, unread count"],
  ["--on-brand", "--brand", "primary button on hover/active"],
  ["--error", "--bg", "error text"],
  ["--error", "--card", "error text on cards, error summary links"],
  ["--error", "--surface-2", "danger text action in a comment"],
  ["--error", "--error-bg", "Denied badge"],
  ["--on-error", "--error", "danger button at rest"],
  ["--on-error", "--error-dark", "danger button on hover/active"],
  ["--ink", "--success-bg", "success notice"],
  ["--ink", "--error-bg", "error notice"],
  ["--tooltip-ink", "--tooltip-bg", "tooltips"],
  ["--milestone-ink", "--milestone-bg", "milestone badge"],
  ["--audience-us", "--card", "audience label: us"],
  ["--audience-family", "--card", "audience label: family"],
  ["--audience-everyone", "--card", "audience label: everyone"],
];
const CONTROLS: [string, string, string][] = [
  ["--field-border", "--field-bg", "field border"],
  ["--field-border", "--card", "field border on a card"],
  ["--error", "--field-bg", "field border with an error"],
  ["--brand-dark", "--card", "secondary button border"],
  // focus: a 3-px --focus outline over a 5-px --ink ring; the ring contrasts with a light page, the
  // outline with a dark one, and the two with each other on a light page
  ["--ink", "--bg", "focus ring"],
  ["--success-line", "--success-bg", "success notice border"],
];

describe("design tokens (app/app.css)", () => {
  for (const [name, theme] of [
    ["light", light],
    ["dark", dark],
  ] as const) {
    it(`${name} theme: text pairs are at least 4.5:1, control and focus pairs at least 3:1`, () => {
      const low: string[] = [];
      for (const [pairs, min] of [
        [TEXT, 4.5],
        [CONTROLS, 3],
      ] as const) {
        for (const [fg, bg, what] of pairs) {
          const r = ratio(resolve(theme, theme[fg] ?? ""), resolve(theme, theme[bg] ?? ""));
          if (r < min) low.push(`${what}: ${fg} on ${bg} ${r.toFixed(2)}:1 < ${min}`);
        }
      }
      const focus = Math.max(ratio(resolve(theme, theme["--focus"]!), resolve(theme, theme["--bg"]!)), ratio(resolve(theme, theme["--focus"]!), resolve(theme, theme["--ink"]!)));
      if (focus < 3) low.push(`focus outline: ${focus.toFixed(2)}:1 against both the page and the ring`);
      expect(low).toEqual([]);
    });
  }

  it("the dark theme redefines every colour token (none left light by mistake)", () => {
    const colours = Object.entries(light).filter(([, v]) => /^#/.test(v)).map(([k]) => k);
    const notDark = colours.filter((k) => dark[k] === light[k] && !["--focus", "--art-sun"].includes(k));
    expect(notDark).toEqual([]);
  });

  it("motion stops under prefers-reduced-motion", () => {
    expect(css).toMatch(/@media \(prefers-reduced-motion: reduce\)\s*\{[^}]*--duration: 0ms/);
  });
});
