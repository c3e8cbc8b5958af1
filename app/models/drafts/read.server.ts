import type { Db } from "~/lib/db.server";
import type { DraftPhotoRow, DraftRow } from "~/lib/tables-drafts";
import { inList, query } from "~/lib/query.server";
import { config } from "~/lib/config.server";
import type { Photo } from "~/images/photo";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import { DRAFT_MESSAGES, requireDraft, requireKid, whereDraftAuthor } from "../access.server";
import { notFound, type Result } from "../refusal";

// Reading draft moments (docs/decisions/0065-drafts.md): the author's drafts for a kid, one draft.
// Every read goes through the access module's rule (whereDraftAuthor, requireDraft).

/** One photo of a draft: the stored photo, its row's id, alt text and the name of the file it came from. */
export type DraftPhoto = Photo & { id: number; alt: string; name: string };

export type Draft = {
  id: number;
  kidId: number;
  /** "YYYY-MM-DD": the day its photos were taken, the date of the moment it becomes. */
  takenOn: string;
  title: string;
  content: string;
  /** null: the kid's default audience when published */
  audience: DraftRow["audience"];
  milestone: string | null;
  /** ISO 8601 UTC */
  updatedAt: string;
  /** ISO 8601 UTC: when it is swept unless changed before (DRAFT_DAYS after its last change) */
  expiresAt: string;
  photos: DraftPhoto[];
};

const draftColumns = [
  "drafts.id",
  "drafts.kid_id",
  "drafts.taken_on",
  "drafts.title",
  "drafts.content",
  "drafts.audience",
  "drafts.milestone",
  "drafts.updated_at",
] as const;
type DraftColumns = Pick<
  DraftRow,
  "id" | "kid_id" | "taken_on" | "title" | "content" | "audience" | "milestone" | "updated_at"
>;

// newest day first, as a kid's page lists moments; a day's drafts in the order they were made
const kidDrafts = query<{ viewer: number; kidId: number }, DraftColumns>((p, k) =>
  whereDraftAuthor(k("drafts").where("drafts.kid_id", p("kidId")), p("viewer"))
    .orderBy([
      { column: "drafts.taken_on", order: "desc" },
      { column: "drafts.id", order: "asc" },
    ])
    .select(...draftColumns),
);

const draftsByIds = query<{ viewer: number; ids: number[] }, DraftColumns>((p, k) =>
  whereDraftAuthor(inList(k("drafts"), "drafts.id", p("ids")), p("viewer"))
    .orderBy([
      { column: "drafts.taken_on", order: "desc" },
      { column: "drafts.id", order: "asc" },
    ])
    .select(...draftColumns),
);

type PhotoRow = Pick<DraftPhotoRow, "id" | "draft_id" | "alt" | "name"> & PhotoColumns<"photo">;
const photosOfDrafts = query<{ ids: number[] }, PhotoRow>((p, k) =>
  inList(k("draft_photos"), "draft_photos.draft_id", p("ids"))
    .join("images", "images.id", "draft_photos.image_id")
    .orderBy([{ column: "draft_photos.draft_id" }, { column: "draft_photos.position" }, { column: "draft_photos.id" }])
    .select(
      "draft_photos.id",
      "draft_photos.draft_id",
      "draft_photos.alt",
      "draft_photos.name",
      ...photoColumns("images", "photo"),
    ),
);

const DAY_MS = 24 * 60 * 60 * 1000;

/** When a draft last changed at `updatedAt` is swept. */
export function draftExpiry(updatedAt: string): string {
  return new Date(Date.parse(updatedAt) + config().draftDays * DAY_MS).toISOString();
}

async function withPhotos(rows: DraftColumns[], conn?: Db): Promise<Draft[]> {
  if (!rows.length) return [];
  const photos = await photosOfDrafts.all({ ids: rows.map((r) => r.id) }, { conn });
  const byDraft = new Map<number, DraftPhoto[]>();
  for (const row of photos) {
    const photo = photoFromRow(row, "photo");
    if (!photo) continue;
    const list = byDraft.get(row.draft_id) ?? [];
    list.push({ ...photo, id: row.id, alt: row.alt, name: row.name });
    byDraft.set(row.draft_id, list);
  }
  return rows.map((r) => ({
    id: r.id,
    kidId: r.kid_id,
    takenOn: r.taken_on,
    title: r.title,
    content: r.content,
    audience: r.audience,
    milestone: r.milestone,
    updatedAt: r.updated_at,
    expiresAt: draftExpiry(r.updated_at),
    photos: byDraft.get(r.id) ?? [],
  }));
}

/** The drafts `viewerId` wrote, of these ids (others are left out), newest day first. */
export async function draftsOf(viewerId: number, ids: number[], conn?: Db): Promise<Draft[]> {
  if (!ids.length) return [];
  return withPhotos(await draftsByIds.all({ viewer: viewerId, ids: [...new Set(ids)] }, { conn }), conn);
}

/**
 * The viewer's drafts for a kid they may still post on (the owner or a co-parent), newest day
 * first. Not theirs to post on: the access module's refusal.
 */
export async function listDrafts(viewerId: number, kidId: number): Promise<Result<{ drafts: Draft[] }>> {
  const access = await requireKid(viewerId, kidId, "change");
  if (!access.ok) return access;
  return { ok: true, drafts: await withPhotos(await kidDrafts.all({ viewer: viewerId, kidId })) };
}

/** One draft of the viewer's; anyone else's (or none): not found. */
export async function getDraft(viewerId: number, draftId: number): Promise<Result<{ draft: Draft }>> {
  const access = await requireDraft(viewerId, draftId);
  if (!access.ok) return access;
  const [draft] = await draftsOf(viewerId, [draftId]);
  return draft ? { ok: true, draft } : notFound(DRAFT_MESSAGES.draftNotFound);
}
