// What an import brought and what it left out, and why (docs/decisions/0066-imports.md): kept as
// JSON on the imports row and shown on the result page and in the API's answer.

export type ImportKind = "export" | "takeout";

export type ImportSummary = {
  kind: ImportKind;
  /** Kids created; for Takeout the one kid the drafts were made for. */
  kids: number;
  /** Moments created (export) or draft moments made (Takeout). */
  moments: number;
  photos: number;
  clips: number;
  /** Kids and moments of the archive that an earlier import of it brought already. */
  alreadyThere: number;
  /** Each thing left out, in words, with why. */
  skipped: string[];
  /** Other people's likes and comments in the export: never imported as them. */
  othersLikes: number;
  othersComments: number;
  /** Takeout: the kid whose drafts await review. */
  kidId?: number;
};

export function emptySummary(kind: ImportKind): ImportSummary {
  return {
    kind,
    kids: 0,
    moments: 0,
    photos: 0,
    clips: 0,
    alreadyThere: 0,
    skipped: [],
    othersLikes: 0,
    othersComments: 0,
  };
}

/** At most this many skip reasons are kept (an album of thousands of photos could list thousands). */
export const SKIPPED_MAX = 50;

export function skip(summary: ImportSummary, reason: string): void {
  if (summary.skipped.length < SKIPPED_MAX) summary.skipped.push(reason);
  else if (summary.skipped.length === SKIPPED_MAX) summary.skipped.push("…and more.");
}
