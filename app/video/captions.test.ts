import { describe, expect, it } from "vitest";
import { captionLines, parseCaptionLines, webVtt } from "./captions";

describe("captions as timed lines", () => {
  it("become WebVTT, each cue until the next, the last for four seconds within the clip", () => {
    const parsed = parseCaptionLines("0:00 Ana laughs\n\n0:04.5 Grandma! <3 & more\n1:02 Bye");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(webVtt(parsed.cues, 64_000)).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:04.500\nAna laughs\n\n00:00:04.500 --> 00:01:02.000\nGrandma! &lt;3 &amp; more\n\n00:01:02.000 --> 00:01:04.000\nBye\n",
    );
    // and back to the lines the parent wrote
    expect(captionLines(webVtt(parsed.cues, 64_000))).toBe("0:00 Ana laughs\n0:04.500 Grandma! <3 & more\n1:02 Bye");
    expect(webVtt([], null)).toBeNull();
  });

  it("say which line is wrong", () => {
    expect(parseCaptionLines("Hello there")).toEqual({
      ok: false,
      message: "Line 1: start with the time, like 0:05, then the words.",
    });
    expect(parseCaptionLines("0:05 a\n0:03 b")).toEqual({
      ok: false,
      message: "Line 2: each caption must start after the one before.",
    });
    expect(parseCaptionLines(`0:01 ${"x".repeat(201)}`)).toMatchObject({
      ok: false,
      message: "Line 1: at most 200 characters.",
    });
    // an arrow cannot forge a cue: it is words inside one
    const forged = parseCaptionLines("0:01 a --> b");
    expect(forged.ok && webVtt(forged.cues, null)).toContain("a --&gt; b");
  });
});
