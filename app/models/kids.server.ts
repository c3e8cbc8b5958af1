import { data } from "react-router";
import { db, nowIso, type Db } from "~/lib/db.server";
import { readQuery } from "~/lib/db-read.server";
import type { IsoDate } from "~/lib/dates";
import type { KidInput } from "~/forms/kid";
import type { Photo } from "~/images/photo";
import { photoColumns, photoFromRow } from "~/images/photo-sql.server";
import { deleteImageFiles, withNewImage } from "~/images/storage.server";
import type { UploadedFile } from "~/images/multipart.server";
import { accessToKid, kidAccess, type KidAccess } from "./access.server";

// Kids: queries and the owner-only rules. Pages and /api routes call these functions; the
// visibility rule itself is app/models/access.server.ts.

export type Kid = {
  id: number;
  user_id: number;
  name: string;
  birth_date: IsoDate;
  relationship: string;
  photo: Photo | null;
};

/**
 * Why something was refused. "not-found": no such row. "hidden": it exists but the viewer may not
 * see it (pages answer 404, the API 403). "forbidden": the viewer may see it but only the owner
 * may change it (403).
 */
export type Refusal = { ok: false; reason: "not-found" | "hidden" | "forbidden" };
/** The uploaded photo was refused (not an image, too large…): the message for the `image` field. */
export type ImageRefusal = { ok: false; reason: "invalid"; errors: { image: string[] } };

export const refuse = (reason: Refusal["reason"]): Refusal => ({ ok: false, reason });

export const kidColumns = [
  "kids.id",
  "kids.user_id",
  "kids.name",
  "kids.birth_date",
  "kids.relationship",
  ...photoColumns("kid_images", "kid_image"),
];

/** Base query: kids joined with their photo. */
export function kidsQuery(conn: Db = db()) {
  return conn("kids").leftJoin("images as kid_images", "kid_images.id", "kids.image_id");
}

export function kidFromRow(row: Record<string, unknown>): Kid {
  return {
    id: Number(row.id),
    user_id: Number(row.user_id),
    name: String(row.name),
    birth_date: String(row.birth_date),
    relationship: String(row.relationship),
    photo: photoFromRow(row, "kid_image"),
  };
}

async function getKid(kidId: number, conn: Db = db()): Promise<Kid | null> {
  const row = await kidsQuery(conn).where("kids.id", kidId).first(kidColumns);
  return row ? kidFromRow(row) : null;
}

// the kid pages' and /api's hot read: one prepared statement on the read connection
const kidRead = readQuery<{ kidId: number }>((p) => kidsQuery(db()).where("kids.id", p("kidId")).first(kidColumns));

/** A user's own kids, in id order (My Kids, GET /api/kids/current). One query. */
export async function listKidsOf(ownerId: number): Promise<Kid[]> {
  const rows = await kidsQuery().where("kids.user_id", ownerId).orderBy("kids.id").select(kidColumns);
  return rows.map(kidFromRow);
}

/**
 * The kids of many owners at once, in id order (e.g. the friends list): one query whatever the
 * number of owners. The caller must already know the viewer may see these owners' kids.
 */
export async function listKidsOfOwners(ownerIds: number[]): Promise<Map<number, Kid[]>> {
  const out = new Map<number, Kid[]>(ownerIds.map((id) => [id, []]));
  if (!ownerIds.length) return out;
  const rows = await kidsQuery()
    .whereIn("kids.user_id", [...new Set(ownerIds)])
    .orderBy("kids.id")
    .select(kidColumns);
  for (const row of rows) {
    const kid = kidFromRow(row);
    out.get(kid.user_id)?.push(kid);
  }
  return out;
}

/** Why `access` does not allow seeing (or, with `change`, changing) a kid; null when it does. */
export function kidRefusal(access: KidAccess | null, change: boolean): Refusal | null {
  if (!access) return refuse("not-found");
  if (!access.visible) return refuse("hidden");
  if (change && !access.isOwner) return refuse("forbidden");
  return null;
}

/** A kid as `viewerId` may see it (the owner or an accepted friend of the owner). */
export async function viewKid(viewerId: number, kidId: number): Promise<{ ok: true; kid: Kid; isOwner: boolean } | Refusal> {
  // the kid's row carries its owner: the access rule runs on it (no separate owner lookup)
  const row = await kidRead.first({ kidId });
  const kid = row ? kidFromRow(row) : null;
  const access = kid ? await accessToKid(viewerId, kid.id, kid.user_id) : null;
  const refusal = kidRefusal(access, false);
  if (refusal) return refusal;
  return { ok: true, kid: kid!, isOwner: access!.isOwner };
}

/** May `viewerId` change this kid (and add moments to it)? ok, or why not. */
export async function checkKidOwner(viewerId: number, kidId: number): Promise<{ ok: true } | Refusal> {
  return kidRefusal(await kidAccess(viewerId, kidId), true) ?? { ok: true };
}

class Gone extends Error {}

/** Adds a kid for `ownerId`, with an optional photo. */
export async function createKid(
  ownerId: number,
  input: KidInput,
  file: UploadedFile | null,
): Promise<{ ok: true; kid: Kid } | ImageRefusal> {
  const row = { user_id: ownerId, name: input.name, birth_date: input.birth_date, relationship: input.relationship, created_at: nowIso() };
  let id: number;
  if (file) {
    const result = await withNewImage(file, { kind: "kid", ownerId }, async (trx, imageId) =>
      insertedId(await trx("kids").insert({ ...row, image_id: imageId }).returning("id")),
    );
    if (!result.ok) return { ok: false, reason: "invalid", errors: { image: [result.error] } };
    id = result.value;
  } else {
    id = insertedId(await db()("kids").insert(row).returning("id"));
  }
  const kid = await getKid(id);
  if (!kid) throw new Error("kid vanished after insert");
  return { ok: true, kid };
}

/** Updates a kid (owner only); a new photo replaces the old one, whose files go after the commit. */
export async function updateKid(
  viewerId: number,
  kidId: number,
  input: KidInput,
  file: UploadedFile | null,
): Promise<{ ok: true; kid: Kid } | Refusal | ImageRefusal> {
  const refusal = kidRefusal(await kidAccess(viewerId, kidId), true);
  if (refusal) {
    await file?.discard();
    return refusal;
  }
  const changes = { name: input.name, birth_date: input.birth_date, relationship: input.relationship };
  if (file) {
    try {
      const result = await withNewImage(file, { kind: "kid", ownerId: viewerId }, async (trx, imageId, { dropImages }) => {
        const kid = await trx("kids").where({ id: kidId, user_id: viewerId }).first("image_id");
        if (!kid) throw new Gone();
        await trx("kids").where({ id: kidId }).update({ ...changes, image_id: imageId });
        await dropImages([kid.image_id]);
      });
      if (!result.ok) return { ok: false, reason: "invalid", errors: { image: [result.error] } };
    } catch (error) {
      if (error instanceof Gone) return refuse("not-found");
      throw error;
    }
  } else {
    const count = await db()("kids").where({ id: kidId, user_id: viewerId }).update(changes);
    if (!count) return refuse("not-found");
  }
  const kid = await getKid(kidId);
  return kid ? { ok: true, kid } : refuse("not-found");
}

/**
 * Removes a kid (owner only) with everything hanging off it: its moments, their likes and
 * comments (foreign-key cascades), and every photo (rows in the same transaction, files after the
 * commit). A fixed number of statements whatever the number of moments.
 */
export async function removeKid(viewerId: number, kidId: number): Promise<{ ok: true } | Refusal> {
  const refusal = kidRefusal(await kidAccess(viewerId, kidId), true);
  if (refusal) return refusal;
  const keys: string[] = [];
  const removed = await db().transaction(async (trx) => {
    const kid = await trx("kids").where({ id: kidId, user_id: viewerId }).first("id");
    if (!kid) return false;
    const images: { id: number; key: string }[] = await trx("images")
      .whereIn("id", trx("daily_logs").where("kid_id", kidId).whereNotNull("image_id").select("image_id"))
      .orWhereIn("id", trx("kids").where("id", kidId).whereNotNull("image_id").select("image_id"))
      .select("id", "key");
    // the kid first: its moments, likes and comments go by cascade; then the now unreferenced photos
    await trx("kids").where("id", kidId).delete();
    const ids = images.map((i) => i.id);
    for (let i = 0; i < ids.length; i += 500) await trx("images").whereIn("id", ids.slice(i, i + 500)).delete();
    keys.push(...images.map((i) => i.key));
    return true;
  });
  if (!removed) return refuse("not-found");
  await deleteImageFiles(keys);
  return { ok: true };
}

/**
 * Gives a kid a new photo, replacing (and deleting) any old one, without a permission check: for
 * trusted callers such as the demo seed. The file is consumed. Returns the image error or null.
 */
export async function setKidPhoto(kidId: number, file: UploadedFile): Promise<string | null> {
  const owner = await db()("kids").where("id", kidId).first("user_id");
  if (!owner) {
    await file.discard();
    throw new Error(`no kid ${kidId}`);
  }
  const result = await withNewImage(file, { kind: "kid", ownerId: Number(owner.user_id) }, async (trx, imageId, { dropImages }) => {
    const kid = await trx("kids").where("id", kidId).first("image_id");
    if (!kid) throw new Gone();
    await trx("kids").where("id", kidId).update({ image_id: imageId });
    await dropImages([kid.image_id]);
  });
  return result.ok ? null : result.error;
}

export function insertedId(rows: unknown[]): number {
  const row = rows[0];
  const id = Number(typeof row === "object" && row !== null ? (row as { id: unknown }).id : row);
  if (!Number.isSafeInteger(id) || id <= 0) throw new Error("insert returned no id");
  return id;
}

/**
 * What an HTML page answers for a refusal: the plain not-found page when the viewer may not see
 * the thing (identical to "does not exist"), 403 when they may see it but only the owner may
 * change it (a friend already knows it exists, so the 403 reveals nothing).
 */
export function refusalPage(refusal: Pick<Refusal, "reason">) {
  return refusal.reason === "forbidden"
    ? data("Only the owner can change this kid and its moments.", { status: 403 })
    : data("Not found", { status: 404 });
}
