// HTTP byte ranges (RFC 9110 §14) for the clip route: one range is served as 206, a range that
// starts past the end as 416, anything else (none, several, malformed) as the whole file, as the
// RFC lets a server do. A video element asks `bytes=0-` first, then ranges as it seeks.

export type RangeAnswer = { kind: "whole" } | { kind: "part"; start: number; end: number } | { kind: "unsatisfiable" };

const ONE_RANGE = /^bytes=(\d*)-(\d*)$/;

/** What `Range: header` asks of a file of `size` bytes (`ifRangeMatches`: If-Range absent or naming this version). */
export function byteRange(header: string | null, size: number, ifRangeMatches = true): RangeAnswer {
  if (!header || !ifRangeMatches) return { kind: "whole" };
  const match = ONE_RANGE.exec(header.trim());
  if (!match) return { kind: "whole" };
  const [, from = "", to = ""] = match;
  if (from === "" && to === "") return { kind: "whole" };
  if (from === "") {
    // the last `to` bytes
    const suffix = Number(to);
    if (!Number.isSafeInteger(suffix) || suffix === 0) return { kind: "unsatisfiable" };
    return size === 0 ? { kind: "unsatisfiable" } : { kind: "part", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return { kind: "whole" };
  if (to !== "" && Number(to) < start) return { kind: "whole" }; // malformed: ignored
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "part", start, end };
}
