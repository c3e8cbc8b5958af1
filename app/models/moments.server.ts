import { db, nowIso, type Db } from "~/lib/db.server";
import { readQuery, type ParamFn } from "~/lib/db-read.server";
import type { MomentInput } from "~/forms/moment";
import type { Photo } from "~/images/photo";
import { photoColumns, photoFromRow } from "~/images/photo-sql.server";
import { deleteImageFiles, withNewImage } from "~/images/storage.server";
import type { UploadedFile } from "~/images/multipart.server";
import { accessToKid, kidAccess, logAccess, type LogAccess } from "./access.server";
import { insertedId, kidRefusal, refuse, viewKid, type ImageRefusal, type Kid, type Refusal } from "./kids.server";

// Moments (daily logs): queries, the cursor-paged list of a kid's moments, and the owner-only
// rules. Pages and /api routes call these functions.

export type Moment = {
  id: number;
  kid_id: number;
  title: string;
  content: string;
  photo: Photo | null;
  /** ISO 8601 UTC. */
  created_at: string;
};

/** Where a page of moments stops: the last one shown (newest first, ties broken by id). */
export type Cursor = { createdAt: string; id: number };

export const momentColumns = [
  "daily_logs.id",
  "daily_logs.kid_id",
  "daily_logs.title",
  "daily_logs.content",
  "daily_logs.created_at",
  ...photoColumns("log_images", "log_image"),
];

export function momentsQuery(conn: Db = db()) {
  return conn("daily_logs").leftJoin("images as log_images", "log_images.id", "daily_logs.image_id");
}

export function momentFromRow(row: Record<string, unknown>): Moment {
  return {
    id: Number(row.id),
    kid_id: Number(row.kid_id),
    title: String(row.title),
    content: String(row.content),
    photo: photoFromRow(row, "log_image"),
    created_at: String(row.created_at),
  };
}

// ---- cursors ----

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Opaque to clients: base64url of "<created_at>_<id>". */
export function encodeCursor(moment: Pick<Moment, "created_at" | "id">): string {
  return Buffer.from(`${moment.created_at}_${moment.id}`, "utf8").toString("base64url");
}

/** The cursor, or null when it is not one of ours. */
export function decodeCursor(value: string): Cursor | null {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(value)) return null;
  const text = Buffer.from(value, "base64url").toString("utf8");
  const m = /^(.+)_([1-9][0-9]{0,15})$/.exec(text);
  if (!m || !ISO_INSTANT.test(m[1]!)) return null;
  const id = Number(m[2]);
  return Number.isSafeInteger(id) ? { createdAt: m[1]!, id } : null;
}

// ---- reading ----

export type MomentPage = { ok: true; kid: Kid; isOwner: boolean; moments: Moment[]; next: string | null };

/**
 * A kid's moments, newest first, as `viewerId` may see them: all of them, or (with `limit`) one
 * page older than `before` plus the cursor of the next page. The page is one range scan of the
 * `daily_logs_kid_cursor` index, so it costs the same for a kid with 5 or 5,000 moments; the whole
 * call is a fixed number of queries (the kid with its owner, the friendship when the viewer is not
 * the owner, the moments), prepared statements on the read connection.
 */
export async function listMoments(
  viewerId: number,
  kidId: number,
  opts: { limit?: number; before?: Cursor | null } = {},
): Promise<MomentPage | Refusal> {
  const view = await viewKid(viewerId, kidId);
  if (!view.ok) return view;
  // SQLite: a negative LIMIT means no limit
  const limit = opts.limit ? opts.limit + 1 : -1;
  const rows = opts.before
    ? await momentsPageAfterRead.all({ kidId, limit, createdAt: opts.before.createdAt, id: opts.before.id })
    : await momentsPageRead.all({ kidId, limit });
  const more = opts.limit !== undefined && rows.length > opts.limit;
  const moments = (more ? rows.slice(0, opts.limit) : rows).map(momentFromRow);
  const last = moments[moments.length - 1];
  return { ok: true, kid: view.kid, isOwner: view.isOwner, moments, next: more && last ? encodeCursor(last) : null };
}

type MomentsPageParams = { kidId: number; limit: number; createdAt: string; id: number };

/** A kid's moments, newest first (ties by id), optionally older than a cursor; `limit ?` last. */
function momentsPageSql(p: ParamFn<MomentsPageParams>, afterCursor: boolean) {
  const q = momentsQuery(db())
    .where("daily_logs.kid_id", p("kidId"))
    .orderBy([
      { column: "daily_logs.created_at", order: "desc" },
      { column: "daily_logs.id", order: "desc" },
    ])
    .select(momentColumns);
  // a row-value comparison: a range on the (kid_id, created_at, id) index, however deep the page
  if (afterCursor) q.whereRaw("(daily_logs.created_at, daily_logs.id) < (?, ?)", [p("createdAt"), p("id")]);
  const { sql, bindings } = q.toSQL().toNative();
  return db().raw(`${sql} limit ?`, [...bindings, p("limit")]);
}
// the first page asks for no cursor parameters
const momentsPageRead = readQuery<Omit<MomentsPageParams, "createdAt" | "id">>((p) => momentsPageSql(p as ParamFn<MomentsPageParams>, false));
const momentsPageAfterRead = readQuery<MomentsPageParams>((p) => momentsPageSql(p, true));

export type MomentView = { ok: true; moment: Moment; kid: { id: number; name: string; user_id: number }; isOwner: boolean };

const momentViewRead = readQuery<{ logId: number }>((p) =>
  momentsQuery(db())
    .join("kids", "kids.id", "daily_logs.kid_id")
    .where("daily_logs.id", p("logId"))
    .first([...momentColumns, "kids.name as kid_name", "kids.user_id as kid_user_id"]),
);

/** One moment with its kid's name, as `viewerId` may see it. */
export async function viewMoment(viewerId: number, logId: number): Promise<MomentView | Refusal> {
  // the moment's row carries its kid's owner: the access rule runs on it (no separate lookup)
  const row = await momentViewRead.first({ logId });
  const access: LogAccess | null = row
    ? { logId, ...(await accessToKid(viewerId, Number(row.kid_id), Number(row.kid_user_id))) }
    : null;
  const refusal = logRefusal(access, false);
  if (refusal) return refusal;
  return {
    ok: true,
    moment: momentFromRow(row!),
    kid: { id: Number(row!.kid_id), name: String(row!.kid_name), user_id: Number(row!.kid_user_id) },
    isOwner: access!.isOwner,
  };
}

function logRefusal(access: LogAccess | null, change: boolean): Refusal | null {
  if (!access) return refuse("not-found");
  if (!access.visible) return refuse("hidden");
  if (change && !access.isOwner) return refuse("forbidden");
  return null;
}

/** May `viewerId` change this moment? ok (with its kid), or why not. */
export async function checkMomentOwner(viewerId: number, logId: number): Promise<{ ok: true; kidId: number } | Refusal> {
  const access = await logAccess(viewerId, logId);
  return logRefusal(access, true) ?? { ok: true, kidId: access!.kidId };
}

async function getMoment(logId: number): Promise<Moment | null> {
  const row = await momentsQuery().where("daily_logs.id", logId).first(momentColumns);
  return row ? momentFromRow(row) : null;
}

// ---- changing ----

class Gone extends Error {}

/** Adds a moment to a kid (the kid's owner only). The photo is required. */
export async function createMoment(
  viewerId: number,
  kidId: number,
  input: MomentInput,
  file: UploadedFile | null,
): Promise<{ ok: true; moment: Moment } | Refusal | ImageRefusal> {
  const refusal = kidRefusal(await kidAccess(viewerId, kidId), true);
  if (refusal || !file) {
    await file?.discard();
    return refusal ?? { ok: false, reason: "invalid", errors: { image: ["Image is required"] } };
  }
  const now = nowIso();
  try {
    const result = await withNewImage(file, { kind: "log", ownerId: viewerId }, async (trx, imageId) => {
      const kid = await trx("kids").where({ id: kidId, user_id: viewerId }).first("id");
      if (!kid) throw new Gone();
      return insertedId(
        await trx("daily_logs")
          .insert({ kid_id: kidId, title: input.title, content: input.content, image_id: imageId, created_at: now, updated_at: now })
          .returning("id"),
      );
    });
    if (!result.ok) return { ok: false, reason: "invalid", errors: { image: [result.error] } };
    const moment = await getMoment(result.value);
    return moment ? { ok: true, moment } : refuse("not-found");
  } catch (error) {
    if (error instanceof Gone) return refuse("not-found");
    throw error;
  }
}

/** Updates a moment (owner only); `created_at` stays. A new photo replaces and deletes the old one. */
export async function updateMoment(
  viewerId: number,
  logId: number,
  input: MomentInput,
  file: UploadedFile | null,
): Promise<{ ok: true; moment: Moment } | Refusal | ImageRefusal> {
  const refusal = logRefusal(await logAccess(viewerId, logId), true);
  if (refusal) {
    await file?.discard();
    return refusal;
  }
  const changes = { title: input.title, content: input.content, updated_at: nowIso() };
  const owned = (conn: Db) =>
    conn("daily_logs")
      .where("daily_logs.id", logId)
      .whereIn("daily_logs.kid_id", conn("kids").where("user_id", viewerId).select("id"));
  if (file) {
    try {
      const result = await withNewImage(file, { kind: "log", ownerId: viewerId }, async (trx, imageId, { dropImages }) => {
        const log = await owned(trx).first("daily_logs.image_id");
        if (!log) throw new Gone();
        await trx("daily_logs").where("id", logId).update({ ...changes, image_id: imageId });
        await dropImages([log.image_id]);
      });
      if (!result.ok) return { ok: false, reason: "invalid", errors: { image: [result.error] } };
    } catch (error) {
      if (error instanceof Gone) return refuse("not-found");
      throw error;
    }
  } else {
    const count = await owned(db()).update(changes);
    if (!count) return refuse("not-found");
  }
  const moment = await getMoment(logId);
  return moment ? { ok: true, moment } : refuse("not-found");
}

/**
 * Deletes a moment (owner only) with its likes and comments (foreign-key cascades) and its photo
 * (row in the same transaction, files after the commit). Answers the kid's id.
 */
export async function deleteMoment(viewerId: number, logId: number): Promise<{ ok: true; kidId: number } | Refusal> {
  const refusal = logRefusal(await logAccess(viewerId, logId), true);
  if (refusal) return refusal;
  let key: string | null = null;
  const kidId = await db().transaction(async (trx) => {
    const log = await trx("daily_logs")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .leftJoin("images", "images.id", "daily_logs.image_id")
      .where({ "daily_logs.id": logId, "kids.user_id": viewerId })
      .first("daily_logs.kid_id", "daily_logs.image_id", "images.key");
    if (!log) return null;
    await trx("daily_logs").where("id", logId).delete();
    if (log.image_id) await trx("images").where("id", log.image_id).delete();
    key = log.key ?? null;
    return Number(log.kid_id);
  });
  if (kidId === null) return refuse("not-found");
  if (key) await deleteImageFiles([key]);
  return { ok: true, kidId };
}

/**
 * Gives a moment a new photo, replacing (and deleting) any old one, without a permission check:
 * for trusted callers such as the demo seed. The file is consumed. Returns the image error or null.
 */
export async function setMomentPhoto(logId: number, file: UploadedFile): Promise<string | null> {
  const owner = await db()("daily_logs").join("kids", "kids.id", "daily_logs.kid_id").where("daily_logs.id", logId).first("kids.user_id");
  if (!owner) {
    await file.discard();
    throw new Error(`no daily log ${logId}`);
  }
  const result = await withNewImage(file, { kind: "log", ownerId: Number(owner.user_id) }, async (trx, imageId, { dropImages }) => {
    const log = await trx("daily_logs").where("id", logId).first("image_id");
    if (!log) throw new Gone();
    await trx("daily_logs").where("id", logId).update({ image_id: imageId });
    await dropImages([log.image_id]);
  });
  return result.ok ? null : result.error;
}
