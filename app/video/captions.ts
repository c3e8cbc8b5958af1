// A clip's captions (docs/decisions/0064-video-clips.md): the parent writes timed lines, one per
// caption, "0:05 Grandma!" (minutes:seconds, or hours:minutes:seconds), in order; each shows until
// the next one's time (the last for four seconds, never past the clip's end). They are kept and
// served as WebVTT, the format a <track> reads; the form shows them as lines again. Shared by the
// browser and the server: plain functions, no node imports.

export const MAX_CAPTION_LINES = 300;
export const MAX_CAPTION_CHARS = 200;
const LAST_CUE_MS = 4000;

const LINE = /^(?:(\d{1,2}):)?(\d{1,3}):([0-5]\d)(?:[.,](\d{1,3}))?\s+(\S.*)$/;

export type Cue = { startMs: number; text: string };

export type CaptionsParse = { ok: true; cues: Cue[] } | { ok: false; message: string };

/** The parent's lines as cues, or what is wrong (the first problem, with its line number). */
export function parseCaptionLines(text: string): CaptionsParse {
  const lines = text
    .split(/\r\n|\r|\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length > MAX_CAPTION_LINES) return { ok: false, message: `At most ${MAX_CAPTION_LINES} captions.` };
  const cues: Cue[] = [];
  for (const [i, line] of lines.entries()) {
    const m = LINE.exec(line);
    if (!m) return { ok: false, message: `Line ${i + 1}: start with the time, like 0:05, then the words.` };
    const [, h = "0", min = "0", sec = "0", frac = "", words = ""] = m;
    const startMs =
      ((Number(h) * 60 + Number(min)) * 60 + Number(sec)) * 1000 + (frac ? Number(frac.padEnd(3, "0")) : 0);
    if (Array.from(words).length > MAX_CAPTION_CHARS)
      return { ok: false, message: `Line ${i + 1}: at most ${MAX_CAPTION_CHARS} characters.` };
    if (/\p{Cc}/u.test(words)) return { ok: false, message: `Line ${i + 1}: only plain text.` };
    const previous = cues[cues.length - 1];
    if (previous && startMs <= previous.startMs)
      return { ok: false, message: `Line ${i + 1}: each caption must start after the one before.` };
    cues.push({ startMs, text: words });
  }
  return { ok: true, cues };
}

function stamp(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const f = ms % 1000;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.${String(f).padStart(3, "0")}`;
}

/** What a cue's words become in WebVTT: plain text (no tags, no cue-timing arrow). */
function cueText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The cues as a WebVTT file; null when there are none. `durationMs`: the clip's length, when known. */
export function webVtt(cues: Cue[], durationMs: number | null): string | null {
  if (!cues.length) return null;
  const end = (i: number) => {
    const next = cues[i + 1]?.startMs;
    const last = cues[i]!.startMs + LAST_CUE_MS;
    return next ?? (durationMs && durationMs > cues[i]!.startMs ? Math.min(last, durationMs) : last);
  };
  const body = cues.map((c, i) => `${stamp(c.startMs)} --> ${stamp(end(i))}\n${cueText(c.text)}`).join("\n\n");
  return `WEBVTT\n\n${body}\n`;
}

/** A WebVTT file this module wrote, as the parent's lines again ("0:05 Grandma!"). */
export function captionLines(vtt: string | null): string {
  if (!vtt) return "";
  const out: string[] = [];
  for (const block of vtt.split(/\n\n+/)) {
    const [timing, ...words] = block.split("\n");
    const m = /^(\d{2}):(\d{2}):(\d{2})\.(\d{3}) -->/.exec(timing ?? "");
    if (!m) continue;
    const [, h = "0", min = "0", sec = "0", frac = "000"] = m;
    const minutes = Number(h) * 60 + Number(min);
    const time = `${minutes}:${sec}${frac === "000" ? "" : `.${frac}`}`;
    const text = words.join(" ").trim().replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
    out.push(`${time} ${text}`);
  }
  return out.join("\n");
}
