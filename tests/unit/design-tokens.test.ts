// The colour tokens of both themes meet WCAG AA for every pair the stylesheets use (text 4.5:1,
// controls and focus 3:1), in every state. Read from app/app.css itself, so a changed token that
// breaks a pair fails here (docs/design.md lists the pairs and their ratios).
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
  ["--viewer-ink", "--viewer-bg", "photo viewer: title, dialog close at rest"],
  ["--viewer-muted", "--viewer-bg", "photo viewer: date, photo count"],
  ["--viewer-ink", "--viewer-hover", "photo viewer: dialog close on hover/active"],
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
  ["--focus", "--viewer-bg", "focus outline on the photo viewer"],
];

// ---- the photo viewer: what the stylesheets really paint on its dark backdrop ----
// Token pairs cannot see a rule that mixes a viewer colour with a general one (the dialog's close
// "×" kept the viewer's near-white text while `.modal__close:hover` painted the light tint: 1.00:1).
// So this part runs a small cascade over every stylesheet (app/app.css, app/styles/*.css): the
// viewer's elements as a tree, the rules that match each in a state (rest, hover, active,
// focus-visible), the winner by importance, specificity and order, inherited text colour, the
// nearest painted background. Enough CSS for our selectors: type, class, attribute, :root,
// :not/:is/:where/:has, state pseudo-classes; descendant and child combinators. Anything it does not
// know (siblings, structural pseudo-classes) does not match.

type Decl = { value: string; important: boolean };
type Rule = { selectors: string[]; decls: Map<string, Decl>; order: number; media: string };

/** Split at top-level commas (not inside parentheses or quotes). */
function splitTop(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    else if (c === sep && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((x) => x.trim()).filter(Boolean);
}

/** The index of the `}` that closes the `{` at `open`. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  throw new Error("unbalanced braces");
}

function parseRules(text: string, media: string, out: Rule[]): Rule[] {
  let at = 0;
  while (true) {
    const open = text.indexOf("{", at);
    if (open < 0) return out;
    const prelude = text.slice(at, open).trim();
    const end = closing(text, open);
    const body = text.slice(open + 1, end);
    if (prelude.startsWith("@media") || prelude.startsWith("@supports")) parseRules(body, `${media} ${prelude}`, out);
    else if (!prelude.startsWith("@")) {
      const decls = new Map<string, Decl>();
      for (const d of splitTop(body, ";")) {
        const colon = d.indexOf(":");
        if (colon < 0) continue;
        const value = d.slice(colon + 1).trim();
        decls.set(d.slice(0, colon).trim().toLowerCase(), {
          value: value.replace(/\s*!important$/, ""),
          important: /!important$/.test(value),
        });
      }
      // a selector as one line, whatever the formatter's line breaks inside :is(…) or :not(…)
      const selectors = splitTop(prelude, ",").map((sel) =>
        sel.replace(/\s+/g, " ").replace(/\(\s+/g, "(").replace(/\s+\)/g, ")").trim(),
      );
      out.push({ selectors, decls, order: out.length, media });
    }
    at = end + 1;
  }
}

const stylesDir = path.join(import.meta.dirname, "../../app/styles");
const sheets = [
  css,
  ...fs
    .readdirSync(stylesDir)
    .filter((f) => f.endsWith(".css"))
    .sort()
    .map((f) => fs.readFileSync(path.join(stylesDir, f), "utf8")),
];
const rules = sheets.reduce((out, text) => parseRules(text.replace(/\/\*[\s\S]*?\*\//g, ""), "", out), [] as Rule[]);

type El = {
  tag: string;
  cls: string[];
  attrs: Record<string, string>;
  states: string[];
  parent: El | null;
  children: El[];
};

/** An element: "tag.class.class", attributes and states ("hover", "focus-visible", "modal"…). */
function el(spec: string, opts: { attrs?: Record<string, string>; states?: string[] } = {}, children: El[] = []): El {
  const [tag, ...cls] = spec.split(".");
  const e: El = { tag: tag!, cls, attrs: opts.attrs ?? {}, states: opts.states ?? [], parent: null, children };
  for (const c of children) c.parent = e;
  return e;
}

/** A compound selector's parts: ".x", "tag", "[a=b]", ":hover", ":not(…)", "::before"… */
function parts(compound: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < compound.length) {
    let j = i + 1;
    if (compound[i] === "[") j = compound.indexOf("]", i) + 1;
    else {
      if (compound[i] === ":" && compound[j] === ":") j++;
      while (j < compound.length && /[\w-]/.test(compound[j]!)) j++;
      if (compound[j] === "(") {
        let depth = 0;
        for (; j < compound.length; j++) {
          if (compound[j] === "(") depth++;
          else if (compound[j] === ")" && --depth === 0) break;
        }
        j++;
      }
    }
    out.push(compound.slice(i, j));
    i = j;
  }
  return out;
}

/** A complex selector as [compound, combinator before it][] from left to right. */
function steps(selector: string): { compound: string; comb: string }[] {
  const out: { compound: string; comb: string }[] = [];
  let comb = "";
  let depth = 0;
  let cur = "";
  for (const c of selector.trim()) {
    if (c === "(" || c === "[") depth++;
    if (c === ")" || c === "]") depth--;
    if (depth === 0 && (c === " " || c === ">" || c === "+" || c === "~")) {
      if (cur) {
        out.push({ compound: cur, comb });
        cur = "";
        comb = " ";
      }
      if (c !== " ") comb = c;
      continue;
    }
    cur += c;
  }
  if (cur) out.push({ compound: cur, comb });
  return out;
}

const descendants = (e: El): El[] => e.children.flatMap((c) => [c, ...descendants(c)]);

function matchesCompound(compound: string, e: El, scope: El | null): boolean {
  return parts(compound).every((p) => {
    if (p === "*") return true;
    if (p.startsWith("::")) return false;
    if (p.startsWith(".")) return e.cls.includes(p.slice(1));
    if (p.startsWith("#")) return false;
    if (p.startsWith("[")) {
      const m = /^\[([\w-]+)(?:=["']?([^"'\]]*)["']?)?\]$/.exec(p);
      return Boolean(m && m[1]! in e.attrs && (m[2] === undefined || e.attrs[m[1]!] === m[2]));
    }
    if (p.startsWith(":")) {
      const m = /^:([\w-]+)(?:\((.*)\))?$/.exec(p)!;
      const [, name, arg] = m;
      if (name === "root") return e.tag === "html";
      if (name === "not") return !splitTop(arg!, ",").some((x) => matches(x, e, scope));
      if (name === "is" || name === "where") return splitTop(arg!, ",").some((x) => matches(x, e, scope));
      if (name === "has")
        return splitTop(arg!, ",").some((rel) =>
          rel.startsWith(">")
            ? e.children.some((c) => matches(rel.slice(1), c, e))
            : descendants(e).some((d) => matches(rel, d, e)),
        );
      return e.states.includes(name!);
    }
    return e.tag === p;
  });
}

/** Does the complex selector match `e` (ancestors searched up to, not including, `scope`)? */
function matches(selector: string, e: El, scope: El | null = null): boolean {
  const list = steps(selector);
  const go = (i: number, at: El | null): boolean => {
    if (!at || at === scope) return false;
    if (!matchesCompound(list[i]!.compound, at, scope)) return false;
    if (i === 0) return true;
    const comb = list[i]!.comb;
    if (comb === ">") return go(i - 1, at.parent);
    if (comb === " ") {
      for (let a = at.parent; a && a !== scope; a = a.parent) if (go(i - 1, a)) return true;
      return false;
    }
    return false; // sibling combinators: not modelled
  };
  return go(list.length - 1, e);
}

/** Specificity as one comparable number (ids, classes/attributes/pseudo-classes, types). */
function specificity(selector: string): number {
  let s = 0;
  for (const { compound } of steps(selector))
    for (const p of parts(compound)) {
      if (p === "*") continue;
      if (p.startsWith("::")) s += 1;
      else if (p.startsWith("#")) s += 1e4;
      else if (p.startsWith(":where(")) continue;
      else if (/^:(not|is|has)\(/.test(p))
        s += Math.max(...splitTop(p.slice(p.indexOf("(") + 1, -1), ",").map((x) => specificity(x.replace(/^>/, ""))));
      else if (p.startsWith(".") || p.startsWith("[") || p.startsWith(":")) s += 100;
      else s += 1;
    }
  return s;
}

/** The winning value among `props` (a longhand and its shorthand) for `e` in a theme, or null. */
function cascaded(e: El, props: string[], theme: "light" | "dark"): string | null {
  let best: { important: boolean; spec: number; order: number; value: string } | null = null;
  for (const r of rules) {
    if (
      r.media.includes("forced-colors") ||
      r.media.includes(`prefers-color-scheme: ${theme === "dark" ? "light" : "dark"}`)
    )
      continue;
    for (const prop of props) {
      const d = r.decls.get(prop);
      if (!d) continue;
      for (const sel of r.selectors) {
        if (!matches(sel, e)) continue;
        const cand = { important: d.important, spec: specificity(sel), order: r.order, value: d.value };
        if (
          !best ||
          [+cand.important - +best.important, cand.spec - best.spec, cand.order - best.order].find((x) => x !== 0)! > 0
        )
          best = cand;
      }
    }
  }
  return best?.value ?? null;
}

/** The colour named in a value ("2px solid var(--x)", "#111", "currentColor", "transparent"). */
function colourIn(value: string, theme: Record<string, string>): string | null {
  for (const word of value.split(/\s+(?![^(]*\))/)) {
    if (/^var\(--[\w-]+\)$/.test(word) || /^#[0-9a-f]{3,8}$/i.test(word)) {
      const hex = resolve(theme, word);
      if (!/^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(hex)) throw new Error(`${value} is not a solid colour token (${hex})`);
      return hex;
    }
    if (/^(currentcolor|transparent|none|inherit)$/i.test(word)) return word.toLowerCase();
  }
  return null;
}

const themeOf = (name: "light" | "dark") => (name === "light" ? light : dark);

/** The text colour of `e` (inherited when no rule sets it). */
function textColour(e: El, name: "light" | "dark"): string {
  const v = cascaded(e, ["color"], name);
  const c = v && colourIn(v, themeOf(name));
  if (c && c !== "inherit" && c !== "currentcolor") return c;
  if (!e.parent) throw new Error("no text colour on the root");
  return textColour(e.parent, name);
}

/** The background painted behind `e`: its own, else the nearest ancestor's. */
function backgroundOf(e: El, name: "light" | "dark"): string {
  const v = cascaded(e, ["background-color", "background"], name);
  const c = v && colourIn(v, themeOf(name));
  if (c && !["transparent", "none", "inherit", "currentcolor"].includes(c)) return c;
  if (!e.parent) throw new Error("no background on the root");
  return backgroundOf(e.parent, name);
}

/** The colour of a property that may say currentColor (outline, border). */
function lineColour(e: El, props: string[], name: "light" | "dark"): string | null {
  const v = cascaded(e, props, name);
  const c = v && colourIn(v, themeOf(name));
  if (!c || c === "transparent" || c === "none") return null;
  return c === "currentcolor" ? textColour(e, name) : c;
}

/** The viewer as a page (no JavaScript) and as a dialog over the moment (JavaScript). */
function viewerPage(): El {
  return el("html", {}, [
    el("body", {}, [
      el("main.site-main", {}, [
        el("div.page", {}, [
          el("div.photo-viewer", {}, [
            el("h1.photo-viewer__title", { attrs: { tabindex: "-1" } }),
            el("p.moment__date"),
            el("p.photo-viewer__count", { attrs: { role: "status" } }),
            el("nav.photo-viewer__nav", {}, [el("a.button.button--secondary", { attrs: { href: "/" } })]),
          ]),
        ]),
      ]),
    ]),
  ]);
}
function viewerDialog(): El {
  return el("html", {}, [
    el("body", {}, [
      el("div.modal-backdrop", {}, [
        el("dialog.modal", { attrs: { open: "" }, states: ["modal"] }, [
          el("div.modal__content", {}, [
            el("div.modal__header", {}, [el("h2.modal__title"), el("a.modal__close", { attrs: { href: "/" } })]),
            el("div.photo-viewer", {}, [
              el("p.moment__date"),
              el("p.photo-viewer__count", { attrs: { role: "status", tabindex: "-1" } }),
              el("nav.photo-viewer__nav", {}, [el("a.button.button--secondary", { attrs: { href: "/" } })]),
            ]),
          ]),
        ]),
      ]),
    ]),
  ]);
}

const find = (root: El, cls: string): El => [root, ...descendants(root)].find((e) => e.cls.includes(cls))!;
/** The same element of a fresh tree in a state (hover, active, focus, focus-visible). */
function inState(make: () => El, cls: string, states: string[]): El {
  const e = find(make(), cls);
  e.states.push(...states);
  return e;
}

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
      const focus = Math.max(
        ratio(resolve(theme, theme["--focus"]!), resolve(theme, theme["--bg"]!)),
        ratio(resolve(theme, theme["--focus"]!), resolve(theme, theme["--ink"]!)),
      );
      if (focus < 3) low.push(`focus outline: ${focus.toFixed(2)}:1 against both the page and the ring`);
      expect(low).toEqual([]);
    });
  }

  for (const name of ["light", "dark"] as const) {
    it(`${name} theme: the photo viewer's text and controls on its backdrop, at rest, on hover, active and focused (page and dialog)`, () => {
      const low: string[] = [];
      const STATES = [[], ["hover"], ["active"], ["focus", "focus-visible"]];
      const check = (what: string, r: number, min: number) => {
        if (!(r >= min)) low.push(`${what}: ${r.toFixed(2)}:1 < ${min}`);
      };
      for (const [where, make] of [
        ["page", viewerPage],
        ["dialog", viewerDialog],
      ] as const) {
        const texts =
          where === "page"
            ? ["photo-viewer__title", "moment__date", "photo-viewer__count"]
            : ["modal__title", "modal__close", "moment__date", "photo-viewer__count"];
        for (const cls of [...texts, "button--secondary"]) {
          for (const states of STATES) {
            const e = inState(make, cls, states);
            const label = `${where} .${cls}${states.length ? `:${states.at(-1)}` : ""}`;
            const bg = backgroundOf(e, name);
            check(`${label} text ${textColour(e, name)} on ${bg}`, ratio(textColour(e, name), bg), 4.5);
            // a button's edge (its fill or its border) stands out from the backdrop around it
            if (cls.startsWith("button")) {
              const around = backgroundOf(e.parent!, name);
              const border = lineColour(e, ["border-color", "border"], name);
              check(`${label} edge on ${around}`, Math.max(ratio(bg, around), border ? ratio(border, around) : 1), 3);
            }
            // focus: the outline is drawn around the element, on what is behind it
            if (states.includes("focus-visible")) {
              const outline = lineColour(e, ["outline-color", "outline"], name);
              const around = backgroundOf(e.parent!, name);
              if (!outline) low.push(`${label}: no focus outline`);
              else check(`${label} focus outline ${outline} on ${around}`, ratio(outline, around), 3);
            }
          }
        }
      }
      expect(low).toEqual([]);
    });
  }

  it("no literal colour outside the token sections (the skip link on its fixed yellow, the drawings' skin and ink, the sheen over a hovered photo excepted)", () => {
    const literal = rules
      .filter((r) => !r.selectors.includes(":root"))
      .flatMap((r) =>
        [...r.decls]
          .filter(([, d]) => /#[0-9a-f]{3,8}\b|\brgba?\(|\bhsla?\(/i.test(d.value))
          .map(([prop, d]) => `${r.selectors.join(", ")} { ${prop}: ${d.value} }`),
      )
      .filter((x) => !/^\.(skip-link|art-face|art-ink|art-line|moment__photo-link:hover) /.test(x));
    expect(literal).toEqual([]);
  });

  it("the dark theme redefines every colour token (none left light by mistake)", () => {
    const colours = Object.entries(light)
      .filter(([, v]) => /^#/.test(v))
      .map(([k]) => k);
    const notDark = colours.filter((k) => dark[k] === light[k] && !["--focus", "--art-sun"].includes(k));
    expect(notDark).toEqual([]);
  });

  it("motion stops under prefers-reduced-motion", () => {
    expect(css).toMatch(/@media \(prefers-reduced-motion: reduce\)\s*\{[^}]*--duration: 0ms/);
  });
});
