import type { Db } from "~/lib/db.server";
import type { FriendshipRow, Tables, VideoRow } from "~/lib/tables";
import { query } from "~/lib/query.server";
import { forbidden, notFound, type Refusal } from "../refusal";
import { acceptedBetween } from "./pairs.server";
import { type KidFacts, accessToKid, kidAccess, momentAccess, ownerFacts } from "./facts.server";
import { whereKidVisibleTo, whereMomentVisibleTo } from "./lists.server";
import { isOwnDraftImage } from "./drafts.server";

// The guards for one thing (app/models/access.server.ts): may the viewer see, change or own this
// kid, moment, comment, photo or side of a friendship? Each answers a grant or a Refusal.

export const ACCESS_MESSAGES = {
  kidNotFound: "Kid not found",
  momentNotFound: "Daily log not found",
  commentNotFound: "Comment not found",
  friendshipNotFound: "Friendship not found",
  friendNotFound: "Friend not found",
  notAuthorized: "You are not authorized",
} as const;

/**
 * What the asker wants to do: see it; change it (the kid's owner or a co-parent: edit the kid, add,
 * edit and delete its moments); or own it (the owner only: remove the kid, manage co-parents).
 */
export type Need = "view" | "change" | "own";

const accepted = query<{ a: number; b: number }, Pick<FriendshipRow, "id">>((p, k) =>
  acceptedBetween(k("friendships"), p("a"), p("b")).first("friendships.id"),
);

/** Are `viewerId` and `ownerId` the same user or accepted friends? (Who may see the owner's kids, co-parents aside.) */
export async function canSeeKidsOf(viewerId: number, ownerId: number, conn?: Db): Promise<boolean> {
  if (viewerId === ownerId) return true;
  return Boolean(await accepted.first({ a: viewerId, b: ownerId }, { conn }));
}

export type FriendGrant = { ok: true; friendshipId: number };

/**
 * Is `otherId` an accepted friend of `viewerId` (a friend's own page, /current/friends/{userId})?
 * Anyone else, the viewer included, is not found: the page does not say whether the user exists.
 */
export async function requireFriend(viewerId: number, otherId: number, conn?: Db): Promise<FriendGrant | Refusal> {
  const row = viewerId === otherId ? undefined : await accepted.first({ a: viewerId, b: otherId }, { conn });
  return row ? { ok: true, friendshipId: row.id } : notFound(ACCESS_MESSAGES.friendNotFound);
}

export type KidGrant = { ok: true; kidId: number; ownerId: number; isOwner: boolean; isParent: boolean };
export type MomentGrant = KidGrant & { momentId: number };
export type CommentGrant = { ok: true; commentId: number; momentId: number };

/** A row the caller has already read, with what the rule needs (saves a lookup for the owner). */
export type KidRow = { id: number; ownerId: number };
export type MomentRow = { id: number; kidId: number; ownerId: number };
export type CommentRow = { id: number; momentId: number; authorId: number };

/** null when `facts` allow `need`; otherwise why not. */
function judge(facts: KidFacts | null, need: Need, notFoundMessage: string): Refusal | null {
  if (!facts) return notFound(notFoundMessage);
  if (!facts.visible) return forbidden(ACCESS_MESSAGES.notAuthorized, { hidden: true });
  if (need === "change" && !facts.isParent) return forbidden(ACCESS_MESSAGES.notAuthorized);
  if (need === "own" && !facts.isOwner) return forbidden(ACCESS_MESSAGES.notAuthorized);
  return null;
}

/**
 * May `viewerId` see (`view`), change (`change`: owner or co-parent) or own (`own`: the owner
 * only) this kid? `kid`: its id, or the row the caller has already read (null: there was none).
 */
export async function requireKid(
  viewerId: number,
  kid: number | KidRow | null,
  need: Need = "view",
  conn?: Db,
): Promise<KidGrant | Refusal> {
  const facts =
    typeof kid === "number"
      ? await kidAccess(viewerId, kid, conn)
      : kid && (await accessToKid(viewerId, kid.id, kid.ownerId, conn));
  const refusal = judge(facts, need, ACCESS_MESSAGES.kidNotFound);
  if (refusal) return refusal;
  const { kidId, ownerId, isOwner, isParent } = facts!;
  return { ok: true, kidId, ownerId, isOwner, isParent };
}

/** The same for a moment (its kid's owner and co-parents, and its audience, decide). */
export async function requireMoment(
  viewerId: number,
  moment: number | MomentRow | null,
  need: Need = "view",
  conn?: Db,
): Promise<MomentGrant | Refusal> {
  let facts: (KidFacts & { momentId: number }) | null;
  if (moment === null) facts = null;
  else if (typeof moment !== "number" && moment.ownerId === viewerId)
    facts = { momentId: moment.id, ...ownerFacts(moment.kidId, moment.ownerId) };
  else facts = await momentAccess(viewerId, typeof moment === "number" ? moment : moment.id, conn);
  const refusal = judge(facts, need, ACCESS_MESSAGES.momentNotFound);
  if (refusal) return refusal;
  const { momentId, kidId, ownerId, isOwner, isParent } = facts!;
  return { ok: true, momentId, kidId, ownerId, isOwner, isParent };
}

const commentAuthor = query<{ commentId: number }, Pick<Tables["comments"], "id" | "daily_log_id" | "user_id">>(
  (p, k) =>
    k("comments")
      .where("comments.id", p("commentId"))
      .first("comments.id", "comments.daily_log_id", "comments.user_id"),
);

/**
 * May `viewerId` change (edit, delete) this comment? Its author only, and only while they can
 * still see its moment. With `momentId` (a page's form names both) the comment must be that
 * moment's. Not found: "Comment not found", the moment's absence included.
 */
export async function requireCommentAuthor(
  viewerId: number,
  comment: number | CommentRow | null,
  opts: { momentId?: number; conn?: Db } = {},
): Promise<CommentGrant | Refusal> {
  let row = typeof comment === "number" ? null : comment;
  if (typeof comment === "number") {
    const found = await commentAuthor.first({ commentId: comment }, { conn: opts.conn });
    if (found) row = { id: comment, momentId: found.daily_log_id, authorId: found.user_id };
  }
  if (!row || (opts.momentId !== undefined && row.momentId !== opts.momentId))
    return notFound(ACCESS_MESSAGES.commentNotFound);
  const facts = await momentAccess(viewerId, row.momentId, opts.conn);
  const refusal = judge(facts, "view", ACCESS_MESSAGES.commentNotFound);
  if (refusal) return refusal;
  if (row.authorId !== viewerId) return forbidden(ACCESS_MESSAGES.notAuthorized);
  return { ok: true, commentId: row.id, momentId: row.momentId };
}

/** The images row's facts the rule needs (app/images/storage.server.ts ImageRecord has them). */
export type ImageRef = { id: number; kind: string; owner_id: number };

const kidOfImage = query<{ imageId: number; viewer: number }, Pick<Tables["kids"], "id">>((p, k) =>
  whereKidVisibleTo(k("kids").where("kids.image_id", p("imageId")), p("viewer")).first("kids.id"),
);
// a moment's photo: its first (daily_logs.image_id) or any of its photos (moment_photos), every
// photo of a multi-photo moment (docs/decisions/0030-several-photos-per-moment.md)
const momentOfImage = query<{ imageId: number; viewer: number }, Pick<Tables["daily_logs"], "id">>((p, k) =>
  whereMomentVisibleTo(
    k("daily_logs")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .where((w) =>
        w
          .where("daily_logs.image_id", p("imageId"))
          .orWhereIn(
            "daily_logs.id",
            k("moment_photos").where("moment_photos.image_id", p("imageId")).select("moment_photos.daily_log_id"),
          )
          // a clip's poster is a picture of its moment too (docs/decisions/0064-video-clips.md)
          .orWhereIn(
            "daily_logs.id",
            k("videos").where("videos.poster_image_id", p("imageId")).select("videos.daily_log_id"),
          ),
      ),
    p("viewer"),
  ).first("daily_logs.id"),
);

// a photo chosen in a moment's form that waits for its alt text: its sender only, while they may
// still post for its kid (docs/decisions/0067-one-photo-control.md)
const pendingOfImage = query<{ imageId: number; viewer: number }, Pick<Tables["pending_photos"], "kid_id">>((p, k) =>
  k("pending_photos")
    .where("pending_photos.image_id", p("imageId"))
    .andWhere("pending_photos.uploader_id", p("viewer"))
    .first("pending_photos.kid_id"),
);

/**
 * May `viewerId` fetch this photo? Profile pictures: any signed-in user. A kid's photo: whoever
 * may see the kid; a moment's photo: whoever may see the moment (its audience included), one query
 * from the image to its kid or moment; a pending photo (no moment yet): the parent who sent it. A
 * photo of no kid or moment, or of another kind: nobody.
 */
export async function canViewImage(viewerId: number, image: ImageRef): Promise<boolean> {
  if (image.kind === "user") return true;
  if (image.kind === "kid") return Boolean(await kidOfImage.first({ imageId: image.id, viewer: viewerId }));
  if (image.kind !== "moment") return false;
  if (await momentOfImage.first({ imageId: image.id, viewer: viewerId })) return true;
  // a draft's photo: its author's alone (docs/decisions/0065-drafts.md)
  if (await isOwnDraftImage(viewerId, image.id)) return true;
  // a photo chosen in a moment's form, waiting for its alt text: its sender's alone (0067)
  const pending = await pendingOfImage.first({ imageId: image.id, viewer: viewerId });
  return Boolean(pending && (await requireKid(viewerId, pending.kid_id, "change")).ok);
}

// a clip, by the key of its renditions, with what serving it needs, when its moment is visible
const visibleVideo = query<
  { key: string; viewer: number },
  Pick<VideoRow, "id" | "status" | "captions" | "description" | "duration_ms"> & { moment_id: number }
>((p, k) =>
  whereMomentVisibleTo(
    k("videos").join("daily_logs", "daily_logs.id", "videos.daily_log_id").join("kids", "kids.id", "daily_logs.kid_id"),
    p("viewer"),
  )
    .where("videos.key", p("key"))
    .first(
      "videos.id",
      "videos.status",
      "videos.captions",
      "videos.description",
      "videos.duration_ms",
      "videos.daily_log_id as moment_id",
    ),
);

export type VideoGrant = {
  ok: true;
  videoId: number;
  momentId: number;
  ready: boolean;
  captions: string | null;
  description: string;
  durationMs: number | null;
};

/**
 * May `viewerId` fetch any byte of this clip (a rendition or its captions)? Whoever may see its
 * moment (its audience included), once the clip is ready. Anything else, an unknown key included,
 * is the same hidden refusal: the answer never tells a clip that exists from one that does not.
 */
export async function requireVideo(viewerId: number, key: string): Promise<VideoGrant | Refusal> {
  const row = await visibleVideo.first({ key, viewer: viewerId });
  if (row?.status !== "ready") return forbidden(ACCESS_MESSAGES.notAuthorized, { hidden: true });
  return {
    ok: true,
    videoId: row.id,
    momentId: row.moment_id,
    ready: true,
    captions: row.captions,
    description: row.description,
    durationMs: row.duration_ms,
  };
}

const friendshipParties = query<{ id: number }, Pick<FriendshipRow, "status" | "user_low" | "user_high">>((p, k) =>
  k("friendships")
    .where("friendships.id", p("id"))
    .first("friendships.status", "friendships.user_low", "friendships.user_high"),
);

export type FriendshipGrant = { ok: true; friendshipId: number; side: "low" | "high"; accepted: boolean };

/**
 * May `viewerId` change their own side of this friendship (file the other in a circle, give a
 * relationship; app/models/circles.server.ts)? Its two parties only, whatever its status; `side`
 * says which of the ordered pair's columns are theirs, `accepted` whether the friendship is.
 */
export async function requireFriendshipParty(
  viewerId: number,
  friendshipId: number,
  conn?: Db,
): Promise<FriendshipGrant | Refusal> {
  const row = await friendshipParties.first({ id: friendshipId }, { conn });
  if (!row) return notFound(ACCESS_MESSAGES.friendshipNotFound);
  const side = row.user_low === viewerId ? "low" : row.user_high === viewerId ? "high" : null;
  if (!side) return forbidden(ACCESS_MESSAGES.notAuthorized);
  return { ok: true, friendshipId, side, accepted: row.status === "accepted" };
}
