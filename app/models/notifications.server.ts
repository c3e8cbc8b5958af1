import { href } from "react-router";
import type { KidRow, MomentRow, NotificationRow, UserRow } from "~/lib/tables";
import { nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { displayName, listText } from "~/lib/names";
import { earlierCommenters, mailNewsNow, mailNewsTo } from "~/mail/news.server";
import { audiencesText, circlesFiledBy, momentAudience, whereMomentVisibleTo, whereNoBlockWith } from "./access.server";
import { coParentingBetween } from "./co-parents.server";

// In-app notifications (docs/spec.md "Notifications"). The models that do something
// worth telling write a row per recipient (`notify`): a friend request received or accepted, an
// invitation accepted, a like or a comment on my moment, a reply in a thread I commented on, a new
// moment to everyone who may see it (`notifyNewMoment`). A new moment, a comment and a reply are
// also mailed at once to whoever chose "right away" for them (app/mail/news.server.ts,
// docs/decisions/0062-new-moments-and-notification-choices.md). The
// list groups them ("Ana and 3 others liked …") and shows only what the reader may still see: a
// row about a moment passes the access module's whereMomentVisibleTo, and none is by a user in a
// block with the reader (whereNoBlockWith), never a condition of ours.

export type NotificationKind =
  | "friend-request"
  | "friend-accepted"
  | "invite-accepted"
  | "like"
  | "comment"
  | "reply"
  | "kid-handed-over"
  | "co-parent-added"
  | "moment";

/** Kinds about the recipient's own account (the actor is the recipient): not dropped as "to oneself". */
const ABOUT_ONESELF: ReadonlySet<NotificationKind> = new Set(["kid-handed-over"]);

export type NewNotification = { userId: number; kind: NotificationKind; actorId: number; momentId?: number | null };

/** Adds notifications on `conn` (the caller's transaction when it has one); none to oneself. */
export async function notify(conn: Db, rows: NewNotification[]): Promise<void> {
  const at = nowIso();
  const wanted = rows.filter((r) => r.userId !== r.actorId || ABOUT_ONESELF.has(r.kind));
  if (!wanted.length) return;
  await conn("notifications").insert(
    wanted.map((r) => ({
      user_id: r.userId,
      kind: r.kind,
      actor_id: r.actorId,
      moment_id: r.momentId ?? null,
      created_at: at,
    })),
  );
}

/**
 * After `authorId` commented on a moment of `ownerId`'s (on `conn`, the comment's transaction): the
 * owner is told, and everyone else who commented there before.
 */
export async function notifyComment(
  conn: Db,
  momentId: number,
  ownerId: number,
  authorId: number,
  text = "",
): Promise<void> {
  const others = await earlierCommenters(conn, momentId, ownerId, authorId);
  await notify(conn, [
    { userId: ownerId, kind: "comment", actorId: authorId, momentId },
    ...others.ids.map((userId) => ({ userId, kind: "reply" as const, actorId: authorId, momentId })),
  ]);
  const owner = ownerId === authorId ? [] : [ownerId];
  await mailNewsNow(conn, { kind: "comment", momentId, actorId: authorId, text }, owner);
  await mailNewsTo(conn, { kind: "reply", momentId, actorId: authorId, text }, others.wantMail);
}

/**
 * After `posterId` posted the moment `momentId` (on `conn`, the posting transaction): everyone who
 * may see it (the access module's momentAudience; "Only us" reaches the kid's parents only) is
 * told, but the poster. One notification, and at most one mail, per person, however many photos.
 */
export async function notifyNewMoment(conn: Db, momentId: number, posterId: number): Promise<void> {
  const audience = await momentAudience(momentId, posterId, conn);
  await notify(
    conn,
    audience.map((userId) => ({ userId, kind: "moment" as const, actorId: posterId, momentId })),
  );
  await mailNewsNow(conn, { kind: "moment", momentId, actorId: posterId }, audience);
}

export type NotificationGroup = {
  /** The newest notification's id (also the group's key in lists). */
  id: number;
  kind: NotificationKind;
  /** Newest first, each once. */
  actors: { id: number; name: string }[];
  moment: { id: number; title: string } | null;
  createdAt: string;
  unread: boolean;
  /** "Ana and 3 others liked “Beach day”". */
  text: string;
  /** Where it leads. */
  href: string;
};

/** How many notifications (newest) a list or a count reads at most. */
export const NOTIFICATIONS_READ = 200;

type Listed = Pick<NotificationRow, "id" | "moment_id" | "created_at" | "read_at"> & {
  kind: NotificationKind;
  actor_id: UserRow["id"];
  actor_username: UserRow["username"];
  actor_first_name: UserRow["first_name"];
  actor_last_name: UserRow["last_name"];
  /** null when the notification is about no moment */
  moment_title: MomentRow["title"] | null;
  kid_name: KidRow["name"] | null;
};

function visibleNotifications(unreadOnly: boolean) {
  return query<{ viewer: number }, Listed>((p, k) => {
    const q = k("notifications")
      .join("users as actor", "actor.id", "notifications.actor_id")
      .leftJoin("daily_logs", "daily_logs.id", "notifications.moment_id")
      .leftJoin("kids", "kids.id", "daily_logs.kid_id")
      .where("notifications.user_id", p("viewer"))
      .andWhere((w) =>
        w.whereNull("notifications.moment_id").orWhere((v) => void whereMomentVisibleTo(v, p("viewer"))),
      );
    whereNoBlockWith(q, "notifications.actor_id", p("viewer"));
    if (unreadOnly) q.whereNull("notifications.read_at");
    return q
      .orderBy("notifications.id", "desc")
      .limit(NOTIFICATIONS_READ)
      .select(
        "notifications.id",
        "notifications.kind",
        "notifications.moment_id",
        "notifications.created_at",
        "notifications.read_at",
        "actor.id as actor_id",
        "actor.username as actor_username",
        "actor.first_name as actor_first_name",
        "actor.last_name as actor_last_name",
        "daily_logs.title as moment_title",
        "kids.name as kid_name",
      );
  });
}
const allVisible = visibleNotifications(false);
const unreadVisible = visibleNotifications(true);

const GROUPED: ReadonlySet<NotificationKind> = new Set(["like", "comment", "reply"]);

function sentence(kind: NotificationKind, who: string, title: string | null, kid: string | null = null): string {
  const t = `“${title ?? ""}”`;
  switch (kind) {
    case "friend-request":
      return `${who} sent you a friend request`;
    case "friend-accepted":
      return `${who} accepted your friend request`;
    case "invite-accepted":
      return `${who} accepted your invitation`; // and what they see: withWhatTheySee
    case "like":
      return `${who} liked ${t}`;
    case "comment":
      return `${who} commented on ${t}`;
    case "reply":
      return `${who} also commented on ${t}`;
    case "co-parent-added":
      // the kids are named when the list is read (coParentAddedText)
      return `${who} made you a co-parent`;
    case "moment":
      return `${who} shared a new moment of ${kid ?? ""}: ${t}`;
    case "kid-handed-over":
      // docs/decisions/0041-co-parenting-follows-the-friendship.md
      return "A kid you co-parented is now yours: the other parent deleted their account. Only its parents see it, every moment Only us, until you choose (on its Co-parents page, then each moment).";
  }
}

function names(actors: { name: string }[]): string {
  const [first, second] = actors;
  if (actors.length === 1) return first!.name;
  if (actors.length === 2) return `${first!.name} and ${second!.name}`;
  return `${first!.name} and ${actors.length - 1} others`;
}

function group(rows: Listed[]): NotificationGroup[] {
  const groups = new Map<string, NotificationGroup & { seen: Set<number>; kid: string | null }>();
  for (const row of rows) {
    const kind = row.kind;
    const momentId = row.moment_id;
    const key = GROUPED.has(kind) && momentId !== null ? `${kind}:${momentId}` : `one:${row.id}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        id: row.id,
        kind,
        actors: [],
        moment: momentId === null ? null : { id: momentId, title: row.moment_title ?? "" },
        createdAt: row.created_at,
        unread: false,
        text: "",
        href:
          momentId !== null
            ? href("/dailyLogs/:momentId", { momentId: String(momentId) })
            : kind === "friend-request"
              ? "/current/friends#requests-received"
              : kind === "kid-handed-over" || kind === "co-parent-added"
                ? "/my-kids-list"
                : "/current/friends",
        seen: new Set(),
        kid: row.kid_name,
      };
      groups.set(key, g);
    }
    if (!row.read_at) g.unread = true;
    const actorId = row.actor_id;
    if (!g.seen.has(actorId)) {
      g.seen.add(actorId);
      g.actors.push({
        id: actorId,
        name: displayName({
          username: row.actor_username,
          first_name: row.actor_first_name,
          last_name: row.actor_last_name,
        }),
      });
    }
  }
  return [...groups.values()].map(({ seen: _seen, kid, ...g }) => ({
    ...g,
    text: sentence(g.kind, names(g.actors), g.moment?.title ?? null, kid),
  }));
}

/**
 * "Ana made you a co-parent of Mia and Leo" (docs/decisions/0060-co-parent-invitations.md): the
 * kids the viewer co-parents with the actor as they are when the list is read (a role that has
 * ended is not named), one query for all such notifications.
 */
async function withCoParentedKids(viewerId: number, groups: NotificationGroup[]): Promise<NotificationGroup[]> {
  const added = groups.filter((g) => g.kind === "co-parent-added");
  if (!added.length) return groups;
  const shared = await coParentingBetween(
    viewerId,
    added.map((g) => g.actors[0]!.id),
  );
  for (const g of added) {
    const kids = (shared.get(g.actors[0]!.id) ?? []).filter((s) => s.owner === "theirs" && !s.pending);
    g.text = kids.length
      ? `${g.actors[0]!.name} made you a co-parent of ${listText(kids.map((k) => k.kidName))}`
      : `${g.actors[0]!.name} made you a co-parent (that has ended since)`;
  }
  return groups;
}

/**
 * An accepted invitation says exactly what the new friend sees of the viewer's moments today, from
 * the circle the viewer files them in (the access module's audiencesText; no longer a friend:
 * nothing more is said). One query when there is such a notification.
 */
async function withWhatTheySee(viewerId: number, groups: NotificationGroup[]): Promise<NotificationGroup[]> {
  const joined = groups.filter((g) => g.kind === "invite-accepted");
  if (!joined.length) return groups;
  const circles = await circlesFiledBy(
    viewerId,
    joined.flatMap((g) => g.actors.map((a) => a.id)),
  );
  return groups.map((g) => {
    const circle = g.kind === "invite-accepted" ? circles.get(g.actors[0]!.id) : undefined;
    return circle ? { ...g, text: `${g.text} and sees the moments you share with ${audiencesText(circle)}` } : g;
  });
}

/** The viewer's notifications, grouped, newest first, and how many groups are unread. */
export async function listNotifications(
  viewerId: number,
): Promise<{ notifications: NotificationGroup[]; unread: number }> {
  const notifications = await withWhatTheySee(
    viewerId,
    await withCoParentedKids(viewerId, group(await allVisible.all({ viewer: viewerId }))),
  );
  return { notifications, unread: notifications.filter((n) => n.unread).length };
}

/** How many unread groups the viewer has (the header's count). */
export async function unreadNotifications(viewerId: number): Promise<number> {
  return group(await unreadVisible.all({ viewer: viewerId })).length;
}

/** Marks the viewer's notifications read, up to `upToId` (the newest they were shown) or all. */
export async function markNotificationsRead(viewerId: number, upToId?: number): Promise<void> {
  await writeTransaction(async (trx) => {
    const q = trx("notifications").where("user_id", viewerId).whereNull("read_at");
    if (upToId !== undefined) q.andWhere("id", "<=", upToId);
    await q.update({ read_at: nowIso() });
  });
}
