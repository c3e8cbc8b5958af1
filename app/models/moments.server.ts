import { insertedId, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { limitParam, NO_LIMIT, query, type ParamFn } from "~/lib/query.server";
import type { Knex } from "knex";
import { MOMENT_MESSAGES, type MomentInput } from "~/forms/moment";
import type { Photo } from "~/images/photo";
import { photoColumns, photoFromRow } from "~/images/photo-sql.server";
import { deleteImageFiles, withNewImage } from "~/images/storage.server";
import { fileDigest, type UploadedFile } from "~/images/multipart.server";
import { ACCESS_MESSAGES, requireKid, requireMoment, type Need } from "./access.server";
import { viewKid, type Kid } from "./kids.server";
import { invalidField, notFound, type Refusal, type Result } from "./refusal";
import { submissionOnce } from "./submissions.server";

// Moments (the API's daily logs, docs/api.md): queries, the cursor-paged list of a kid's moments, and the
// owner-only rules. Pages and /api routes call these functions; who may see or change a moment is
// decided by app/models/access.server.ts.

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

export function momentsQuery(conn: Db) {
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

export type MomentPage = { kid: Kid; isOwner: boolean; moments: Moment[]; next: string | null };

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
): Promise<Result<MomentPage>> {
  const view = await viewKid(viewerId, kidId);
  if (!view.ok) return view;
  const limit = opts.limit ? opts.limit + 1 : NO_LIMIT;
  const rows = opts.before
    ? await momentsPageAfter.all({ kidId, limit, createdAt: opts.before.createdAt, id: opts.before.id })
    : await momentsPage.all({ kidId, limit });
  const more = opts.limit !== undefined && rows.length > opts.limit;
  const moments = (more ? rows.slice(0, opts.limit) : rows).map(momentFromRow);
  const last = moments[moments.length - 1];
  return { ok: true, kid: view.kid, isOwner: view.isOwner, moments, next: more && last ? encodeCursor(last) : null };
}

type MomentsPageParams = { kidId: number; limit: number; createdAt: string; id: number };

/** A kid's moments, newest first (ties by id), optionally older than a cursor; `limit ?` last. */
function momentsPageSql(p: ParamFn<MomentsPageParams>, k: Knex, afterCursor: boolean) {
  const q = momentsQuery(k)
    .where("daily_logs.kid_id", p("kidId"))
    .orderBy([
      { column: "daily_logs.created_at", order: "desc" },
      { column: "daily_logs.id", order: "desc" },
    ])
    .select(momentColumns);
  // a row-value comparison: a range on the (kid_id, created_at, id) index, however deep the page
  if (afterCursor) q.whereRaw("(daily_logs.created_at, daily_logs.id) < (?, ?)", [p("createdAt"), p("id")]);
  return limitParam(k, q, p("limit"));
}
// the first page asks for no cursor parameters
const momentsPage = query<Omit<MomentsPageParams, "createdAt" | "id">>((p, k) => momentsPageSql(p as ParamFn<MomentsPageParams>, k, false));
const momentsPageAfter = query<MomentsPageParams>((p, k) => momentsPageSql(p, k, true));

export type MomentView = { moment: Moment; kid: { id: number; name: string; user_id: number }; isOwner: boolean };

/** One moment with its kid's name and owner. */
const momentById = query<{ momentId: number }>((p, k) =>
  momentsQuery(k)
    .join("kids", "kids.id", "daily_logs.kid_id")
    .where("daily_logs.id", p("momentId"))
    .first([...momentColumns, "kids.name as kid_name", "kids.user_id as kid_user_id"]),
);

/** One moment with its kid's name, as `viewerId` may see it; with `need` "change", as its owner only. */
export async function viewMoment(viewerId: number, momentId: number, need: Need = "view"): Promise<Result<MomentView>> {
  // the moment's row carries its kid's owner: the rule runs on it (no separate lookup)
  const row = await momentById.first({ momentId });
  const access = await requireMoment(
    viewerId,
    row ? { id: momentId, kidId: Number(row.kid_id), ownerId: Number(row.kid_user_id) } : null,
    need,
  );
  if (!access.ok) return access;
  return {
    ok: true,
    moment: momentFromRow(row!),
    kid: { id: access.kidId, name: String(row!.kid_name), user_id: access.ownerId },
    isOwner: access.isOwner,
  };
}

/** May `viewerId` change this moment? ok (with its kid), or why not. */
export async function checkMomentOwner(viewerId: number, momentId: number): Promise<Result<{ kidId: number }>> {
  const access = await requireMoment(viewerId, momentId, "change");
  return access.ok ? { ok: true, kidId: access.kidId } : access;
}

async function getMoment(momentId: number): Promise<Moment | null> {
  const row = await momentById.first({ momentId });
  return row ? momentFromRow(row) : null;
}

// ---- changing ----

class Gone extends Error {}

const momentGone = (): Refusal => notFound(ACCESS_MESSAGES.momentNotFound);
const kidGone = (): Refusal => notFound(ACCESS_MESSAGES.kidNotFound);

/**
 * Adds a moment to a kid (the kid's owner only). The photo is required. `token`: the form's
 * one-time submission token; a repeat of a submission that succeeded answers the moment it created
 * (`replayed`) instead of a second one (app/models/submissions.server.ts).
 */
export async function createMoment(
  viewerId: number,
  kidId: number,
  input: MomentInput,
  file: UploadedFile | null,
  opts: { token?: unknown } = {},
): Promise<Result<{ moment: Moment; replayed?: true }>> {
  const access = await requireKid(viewerId, kidId, "change");
  if (!access.ok || !file) {
    await file?.discard();
    return access.ok ? invalidField("image", MOMENT_MESSAGES.add.imageRequired) : access;
  }
  const once = await submissionOnce(viewerId, "moment", opts.token, async () => [kidId, input, await fileDigest(file)], getMoment);
  if (once.first) {
    await file.discard();
    return { ok: true, moment: once.first, replayed: true };
  }
  const now = nowIso();
  try {
    const result = await withNewImage(file, { kind: "log", ownerId: viewerId }, async (trx, imageId) => {
      const kid = await trx("kids").where({ id: kidId, user_id: viewerId }).first("id");
      if (!kid) throw new Gone();
      const id = await insertMoment(trx, kidId, input, { imageId, createdAt: now });
      await once.claim(trx, id);
      return id;
    });
    if (!result.ok) return result;
    const moment = await getMoment(result.value);
    return moment ? { ok: true, moment } : kidGone();
  } catch (error) {
    if (error instanceof Gone) return kidGone();
    const first = await once.winner(error);
    if (!first) throw error;
    return { ok: true, moment: first, replayed: true };
  }
}

/**
 * The daily_logs row of a new moment, on `conn` (createMoment's transaction, or a caller's such as
 * the demo seed's), without any check. Answers its id.
 */
export async function insertMoment(
  conn: Db,
  kidId: number,
  input: MomentInput,
  { imageId, createdAt = nowIso() }: { imageId: number | null; createdAt?: string },
): Promise<number> {
  const row = { kid_id: kidId, title: input.title, content: input.content, image_id: imageId };
  return insertedId(await conn("daily_logs").insert({ ...row, created_at: createdAt, updated_at: createdAt }).returning("id"));
}

/** Updates a moment (owner only); `created_at` stays. A new photo replaces and deletes the old one. */
export async function updateMoment(
  viewerId: number,
  momentId: number,
  input: MomentInput,
  file: UploadedFile | null,
): Promise<Result<{ moment: Moment }>> {
  const access = await requireMoment(viewerId, momentId, "change");
  if (!access.ok) {
    await file?.discard();
    return access;
  }
  const changes = { title: input.title, content: input.content, updated_at: nowIso() };
  const owned = (conn: Db) =>
    conn("daily_logs")
      .where("daily_logs.id", momentId)
      .whereIn("daily_logs.kid_id", conn("kids").where("user_id", viewerId).select("id"));
  if (file) {
    try {
      const result = await withNewImage(file, { kind: "log", ownerId: viewerId }, async (trx, imageId, { dropImages }) => {
        const moment = await owned(trx).first("daily_logs.image_id");
        if (!moment) throw new Gone();
        await trx("daily_logs").where("id", momentId).update({ ...changes, image_id: imageId });
        await dropImages([moment.image_id]);
      });
      if (!result.ok) return result;
    } catch (error) {
      if (error instanceof Gone) return momentGone();
      throw error;
    }
  } else {
    const count = await writeTransaction((trx) => owned(trx).update(changes));
    if (!count) return momentGone();
  }
  const moment = await getMoment(momentId);
  return moment ? { ok: true, moment } : momentGone();
}

/**
 * Deletes a moment (owner only) with its likes and comments (foreign-key cascades) and its photo
 * (row in the same transaction, files after the commit). Answers the kid's id.
 */
export async function deleteMoment(viewerId: number, momentId: number): Promise<Result<{ kidId: number }>> {
  const access = await requireMoment(viewerId, momentId, "change");
  if (!access.ok) return access;
  let key: string | null = null;
  const kidId = await writeTransaction(async (trx) => {
    const moment = await trx("daily_logs")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .leftJoin("images", "images.id", "daily_logs.image_id")
      .where({ "daily_logs.id": momentId, "kids.user_id": viewerId })
      .first("daily_logs.kid_id", "daily_logs.image_id", "images.key");
    if (!moment) return null;
    await trx("daily_logs").where("id", momentId).delete();
    if (moment.image_id) await trx("images").where("id", moment.image_id).delete();
    key = moment.key ?? null;
    return Number(moment.kid_id);
  });
  if (kidId === null) return momentGone();
  if (key) await deleteImageFiles([key]);
  return { ok: true, kidId };
}

/**
 * Gives a moment a new photo, replacing (and deleting) any old one, without a permission check:
 * for trusted callers such as the demo seed. The file is consumed. Refused: an unacceptable photo.
 */
export async function setMomentPhoto(momentId: number, file: UploadedFile): Promise<Result> {
  const owner = await momentById.first({ momentId });
  if (!owner) {
    await file.discard();
    throw new Error(`no moment ${momentId}`);
  }
  const result = await withNewImage(file, { kind: "log", ownerId: Number(owner.kid_user_id) }, async (trx, imageId, { dropImages }) => {
    const moment = await trx("daily_logs").where("id", momentId).first("image_id");
    if (!moment) throw new Gone();
    await trx("daily_logs").where("id", momentId).update({ image_id: imageId });
    await dropImages([moment.image_id]);
  });
  return result.ok ? { ok: true } : result;
}
