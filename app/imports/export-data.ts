import { z } from "zod";
import { AUDIENCES, type Audience } from "~/forms/audiences";
import { RELATIONSHIPS, KID_NAME_MAX } from "~/forms/kid";
import { CONTENT_MAX, MILESTONE_MAX, TITLE_MAX, type MomentInput } from "~/forms/moment";
import type { KidInput } from "~/forms/kid";
import { isRealDate, parseIsoDate } from "~/lib/dates";

// The data.json of an export made by "Export my data" on another Sweet Moments server
// (app/models/export.server.ts writes it), read leniently: only the fields an import uses, each
// checked again as our own forms would (another server, another version, or a hand-edited file).

const photoRef = z.object({ file: z.string(), alt: z.string().nullish() });
const clipRef = z.object({ file: z.string(), description: z.string().nullish(), captions: z.string().nullish() });
const momentSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  content: z.string(),
  taken_on: z.string(),
  milestone: z.string().nullish(),
  audience: z.string().nullish(),
  created_at: z.string().nullish(),
  photos: z.array(photoRef).default([]),
  clips: z.array(clipRef).default([]),
  likes: z.array(z.unknown()).default([]),
  comments: z.array(z.unknown()).default([]),
});
const kidSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  birth_date: z.string(),
  relationship: z.string().nullish(),
  photo: z.string().nullish(),
  moments: z.array(momentSchema).default([]),
});
export const exportSchema = z.object({
  exported_at: z.string(),
  account: z.object({ id: z.number().int(), username: z.string(), created_at: z.string() }),
  kids: z.array(kidSchema),
});

export type ExportFile = z.infer<typeof exportSchema>;
export type ExportFileKid = ExportFile["kids"][number];
export type ExportFileMoment = ExportFileKid["moments"][number];

/** Where the export came from: its account on its server (an id and the account's creation instant name it for good). */
export function exportSource(data: ExportFile): string {
  return `export:${data.account.id}:${data.account.created_at}`.slice(0, 200);
}

/** Text cut to `max` characters (as the forms count them). */
function cut(text: string, max: number): string {
  return Array.from(text).slice(0, max).join("");
}

/** One line: line breaks and tabs become spaces. */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters become spaces on purpose
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").trim();
}

export function realIsoDate(value: string): boolean {
  const parts = parseIsoDate(value);
  return parts !== null && isRealDate(parts);
}

/** The kid as our Add Kid form would take it, or why not. */
export function kidInput(kid: ExportFileKid, today: string): { input: KidInput } | { problem: string } {
  const name = cut(oneLine(kid.name), KID_NAME_MAX);
  if (!name) return { problem: "A kid without a name was not imported." };
  if (!realIsoDate(kid.birth_date) || kid.birth_date > today)
    return { problem: `${name} was not imported: the birth date ${kid.birth_date} is not a real date in the past.` };
  const relationship = (RELATIONSHIPS as readonly string[]).includes(kid.relationship ?? "")
    ? (kid.relationship as KidInput["relationship"])
    : "Other";
  return { input: { name, birth_date: kid.birth_date, relationship } as KidInput };
}

/** The moment as our Add moment form would take it (its date kept as the export says). */
export function momentInput(m: ExportFileMoment): MomentInput {
  const title = cut(oneLine(m.title), TITLE_MAX) || "Moment";
  const content = cut(m.content.trim(), CONTENT_MAX) || title;
  const takenOn = realIsoDate(m.taken_on) ? m.taken_on : undefined;
  const milestone = m.milestone ? cut(oneLine(m.milestone), MILESTONE_MAX) || null : null;
  const audience = (AUDIENCES as readonly string[]).includes(m.audience ?? "") ? (m.audience as Audience) : undefined;
  return { title, content, milestone, ...(takenOn ? { takenOn } : {}), ...(audience ? { audience } : {}) };
}

/** A photo's alt text: one line, at most the form's length; the title when there is none. */
export function altText(alt: string | null | undefined, title: string, max: number): string {
  return cut(oneLine(alt ?? ""), max) || title;
}
