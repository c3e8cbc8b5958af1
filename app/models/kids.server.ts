import { db, insertedId, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { inList, query } from "~/lib/query.server";
import type { IsoDate } from "~/lib/dates";
import type { KidInput } from "~/forms/kid";
import type { Photo } from "~/images/photo";
import { photoColumns, photoFromRow, type PhotoColumns } from "~/images/photo-sql.server";
import type { KidRow } from "~/lib/tables";
import { deleteImageFiles, withNewImage } from "~/images/storage.server";
import { fileDigest, type UploadedFile } from "~/images/multipart.server";
import type { Audience } from "~/forms/circles";
import {
  ACCESS_MESSAGES,
  requireKid,
  visibleKidIds,
  whereKidParentIs,
  whereKidVisibleTo,
  type Need,
} from "./access.server";
import { notFound, type Refusal, type Result } from "./refusal";
import { clipsOfMoments } from "~/video/clips.server";
import { submissionOnce } from "./submissions.server";

// Kids: queries and the owner-only rules. Pages and /api routes call these functions; who may see
// or change a kid is decided by app/models/access.server.ts.

export type Kid = {
  id: number;
  user_id: number;
  name: string;
  birth_date: IsoDate;
  relationship: string;
  photo: Photo | null;
  /** The audience of its new moments (docs/spec.md §6). */
  default_audience: Audience;
};

export const kidColumns = [
  "kids.id",
  "kids.user_id",
  "kids.name",
  "kids.birth_date",
  "kids.relationship",
  "kids.default_audience",
  ...photoColumns("kid_images", "kid_image"),
];

/** The row `kidColumns` select. */
export type KidColumns = Pick<KidRow, "id" | "user_id" | "name" | "birth_date" | "relationship" | "default_audience"> &
  PhotoColumns<"kid_image">;

/** Base query: kids joined with their photo. */
export function kidsQuery(conn: Db = db()) {
  return conn("kids").leftJoin("images as kid_images", "kid_images.id", "kids.image_id");
}

export function kidFromRow(row: KidColumns): Kid {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    birth_date: row.birth_date,
    relationship: row.relationship,
    photo: photoFromRow(row, "kid_image"),
    default_audience: row.default_audience,
  };
}

const kidById = query<{ kidId: number }, KidColumns>((p, k) =>
  kidsQuery(k).where("kids.id", p("kidId")).first(kidColumns),
);

async function getKid(kidId: number): Promise<Kid | null> {
  const row = await kidById.first({ kidId });
  return row ? kidFromRow(row) : null;
}

const kidsOfOwner = query<{ ownerId: number }, KidColumns>((p, k) =>
  whereKidParentIs(kidsQuery(k), p("ownerId")).orderBy("kids.id").select(kidColumns),
);

/** A user's own kids and those they co-parent, in id order (My Kids, GET /api/kids/current). One query. */
export async function listKidsOf(ownerId: number): Promise<Kid[]> {
  return (await kidsOfOwner.all({ ownerId })).map(kidFromRow);
}

const visibleKidsOfOwners = query<{ viewerId: number; ownerIds: number[] }, KidColumns>((p, k) =>
  whereKidVisibleTo(inList(kidsQuery(k), "kids.user_id", p("ownerIds")), p("viewerId"))
    .orderBy("kids.id")
    .select(kidColumns),
);

/**
 * The kids of many owners at once as `viewerId` may see them, in id order (e.g. the friends list):
 * one query whatever the number of owners; an owner whose kids the viewer may not see has none.
 */
export async function listVisibleKidsOf(viewerId: number, ownerIds: number[]): Promise<Map<number, Kid[]>> {
  const out = new Map<number, Kid[]>(ownerIds.map((id) => [id, []]));
  if (!ownerIds.length) return out;
  const rows = await visibleKidsOfOwners.all({ viewerId, ownerIds: [...new Set(ownerIds)] });
  for (const row of rows) {
    const kid = kidFromRow(row);
    out.get(kid.user_id)?.push(kid);
  }
  return out;
}

/** How many kids of other families My Kids shows to someone without kids of their own. */
const SEEN_KIDS_MAX = 24;

const kidsSeenBy = query<{ viewerId: number }, KidColumns>((p, k) =>
  kidsQuery(k)
    .whereIn("kids.id", visibleKidIds(k, p("viewerId")))
    .whereNot((w) => whereKidParentIs(w, p("viewerId")))
    .orderBy("kids.id")
    .limit(SEEN_KIDS_MAX)
    .select(kidColumns),
);

/**
 * The kids of other families `viewerId` may see (a relative's grandchildren), in id order, at most
 * SEEN_KIDS_MAX: what My Kids shows someone who has no kids of their own. One query.
 */
export async function listKidsSeenBy(viewerId: number): Promise<Kid[]> {
  return (await kidsSeenBy.all({ viewerId })).map(kidFromRow);
}

export type KidView = { kid: Kid; isOwner: boolean; isParent: boolean };

/**
 * A kid as `viewerId` may see it (the owner or an accepted friend of the owner); with `need`
 * "change", only as its owner. One query for the kid with its owner, one for the friendship.
 */
export async function viewKid(viewerId: number, kidId: number, need: Need = "view"): Promise<Result<KidView>> {
  // the kid's row carries its owner: the rule runs on it (no separate owner lookup)
  const row = await kidById.first({ kidId });
  const kid = row ? kidFromRow(row) : null;
  const access = await requireKid(viewerId, kid && { id: kid.id, ownerId: kid.user_id }, need);
  if (!access.ok) return access;
  return { ok: true, kid: kid!, isOwner: access.isOwner, isParent: access.isParent };
}

/** May `viewerId` change this kid (and add moments to it)? ok, or why not. */
export async function checkKidOwner(viewerId: number, kidId: number): Promise<Result<{ kidId: number }>> {
  const access = await requireKid(viewerId, kidId, "change");
  return access.ok ? { ok: true, kidId } : access;
}

class Gone extends Error {}

const kidGone = (): Refusal => notFound(ACCESS_MESSAGES.kidNotFound);

/**
 * Adds a kid for `ownerId`, with an optional photo (refused: invalid, on the `image` field).
 * `token`: the form's one-time submission token (app/models/submissions.server.ts); a repeat of a
 * submission that succeeded answers the kid it created (`replayed`) instead of a second kid.
 */
export async function createKid(
  ownerId: number,
  input: KidInput,
  file: UploadedFile | null,
  opts: { token?: unknown } = {},
): Promise<Result<{ kid: Kid; replayed?: true }>> {
  const once = await submissionOnce(
    ownerId,
    "kid",
    opts.token,
    async () => [input, file ? await fileDigest(file) : null],
    getKid,
  );
  if (once.first) {
    await file?.discard();
    return { ok: true, kid: once.first, replayed: true };
  }
  let id: number;
  try {
    if (file) {
      const result = await withNewImage(file, { kind: "kid", ownerId }, async (trx, imageId) => {
        const kidId = await insertKid(trx, ownerId, input, { imageId });
        await once.claim(trx, kidId);
        return kidId;
      });
      if (!result.ok) return result;
      id = result.value;
    } else {
      id = await once.create((conn) => insertKid(conn, ownerId, input));
    }
  } catch (error) {
    const first = await once.winner(error);
    if (!first) throw error;
    return { ok: true, kid: first, replayed: true };
  }
  const kid = await getKid(id);
  if (!kid) throw new Error("kid vanished after insert");
  return { ok: true, kid };
}

/**
 * The kids row of a new kid, on `conn` (createKid's transaction, or a caller's such as the demo
 * seed's), without any check. Answers its id.
 */
export async function insertKid(
  conn: Db,
  ownerId: number,
  input: KidInput,
  { imageId = null, createdAt = nowIso() }: { imageId?: number | null; createdAt?: string } = {},
): Promise<number> {
  const row = {
    user_id: ownerId,
    name: input.name,
    birth_date: input.birth_date,
    relationship: input.relationship,
    ...defaultAudienceChange(input),
  };
  return insertedId(
    await conn("kids")
      .insert({ ...row, image_id: imageId, created_at: createdAt })
      .returning("id"),
  );
}

/** The kid's default audience column: only when the input names one (docs/spec.md §6). */
const defaultAudienceChange = (input: KidInput) =>
  input.default_audience ? { default_audience: input.default_audience } : {};

/** Updates a kid (owner or co-parent); a new photo replaces the old one, whose files go after the commit. */
export async function updateKid(
  viewerId: number,
  kidId: number,
  input: KidInput,
  file: UploadedFile | null,
): Promise<Result<{ kid: Kid }>> {
  const access = await requireKid(viewerId, kidId, "change");
  if (!access.ok) {
    await file?.discard();
    return access;
  }
  const changes = {
    name: input.name,
    birth_date: input.birth_date,
    relationship: input.relationship,
    ...defaultAudienceChange(input),
  };
  // inside the write: still theirs to change (a co-parent may have left meanwhile)
  const stillParent = async (trx: Db) => (await requireKid(viewerId, kidId, "change", trx)).ok;
  if (file) {
    try {
      const result = await withNewImage(
        file,
        { kind: "kid", ownerId: access.ownerId },
        async (trx, imageId, { dropImages }) => {
          const kid = await trx("kids").where({ id: kidId }).first("image_id");
          if (!kid || !(await stillParent(trx))) throw new Gone();
          await trx("kids")
            .where({ id: kidId })
            .update({ ...changes, image_id: imageId });
          await dropImages([kid.image_id]);
        },
      );
      if (!result.ok) return result;
    } catch (error) {
      if (error instanceof Gone) return kidGone();
      throw error;
    }
  } else {
    const count = await writeTransaction(async (trx) =>
      (await stillParent(trx)) ? trx("kids").where({ id: kidId }).update(changes) : 0,
    );
    if (!count) return kidGone();
  }
  const kid = await getKid(kidId);
  return kid ? { ok: true, kid } : kidGone();
}

/**
 * Removes a kid (its owner only, not a co-parent) with everything hanging off it: its moments, their likes and
 * comments (foreign-key cascades), and every photo (rows in the same transaction, files after the
 * commit). A fixed number of statements whatever the number of moments.
 */
export async function removeKid(viewerId: number, kidId: number): Promise<Result> {
  const access = await requireKid(viewerId, kidId, "own");
  if (!access.ok) return access;
  const keys: string[] = [];
  const removed = await writeTransaction(async (trx) => {
    const kid = await trx("kids").where({ id: kidId, user_id: viewerId }).first("id");
    if (!kid) return false;
    const images: { id: number; key: string }[] = await trx("images")
      .whereIn("id", trx("daily_logs").where("kid_id", kidId).whereNotNull("image_id").select("image_id"))
      .orWhereIn("id", trx("kids").where("id", kidId).whereNotNull("image_id").select("image_id"))
      .orWhereIn(
        "id",
        trx("moment_photos")
          .join("daily_logs", "daily_logs.id", "moment_photos.daily_log_id")
          .where("daily_logs.kid_id", kidId)
          .select("moment_photos.image_id"),
      )
      .orWhereIn(
        "id",
        trx("videos")
          .join("daily_logs", "daily_logs.id", "videos.daily_log_id")
          .where("daily_logs.kid_id", kidId)
          .whereNotNull("videos.poster_image_id")
          .select("videos.poster_image_id"),
      )
      // the photos of anyone's drafts for the kid (docs/decisions/0065-drafts.md)
      .orWhereIn(
        "id",
        trx("draft_photos")
          .join("drafts", "drafts.id", "draft_photos.draft_id")
          .where("drafts.kid_id", kidId)
          .select("draft_photos.image_id"),
      )
      .select("id", "key");
    const clips = await clipsOfMoments(trx, trx("daily_logs").where("kid_id", kidId).select("id"));
    // the kid first: its moments, likes and comments go by cascade; then the now unreferenced photos
    await trx("kids").where("id", kidId).delete();
    const ids = images.map((i) => i.id);
    for (let i = 0; i < ids.length; i += 500)
      await trx("images")
        .whereIn("id", ids.slice(i, i + 500))
        .delete();
    keys.push(...images.map((i) => i.key), ...clips.keys);
    return true;
  });
  if (!removed) return kidGone();
  await deleteImageFiles(keys);
  return { ok: true };
}
