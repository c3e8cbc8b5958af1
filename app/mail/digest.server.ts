import type { CommentRow, EmailPreferenceRow, ImageRow, KidRow, MomentRow, UserRow } from "~/lib/tables";
import { nowIso, writeTransaction } from "~/lib/db.server";
import { inList, query } from "~/lib/query.server";
import { config, siteOrigin } from "~/lib/config.server";
import { ageText } from "~/lib/dates";
import { today } from "~/lib/dates.server";
import { displayName } from "~/lib/names";
import { whereCommentShown, whereMomentVisibleTo, whereNoBlockWith } from "~/models/access.server";
import { nextDigestSlot, type DigestChoice, type Delivery, type NewsKind } from "~/models/email-preferences.server";
import { digestMail, THUMBNAIL_PIXELS, type DigestComment, type DigestContent } from "./digest-mail.server";
import { enqueueMail } from "./queue.server";

// Email digests (docs/spec.md "Email digests", docs/decisions/0027-email-digests.md,
// docs/decisions/0062-new-moments-and-notification-choices.md). What is new since the reader's
// last digest, of the kinds they put in their digest: moments they may see (the access module's
// whereMomentVisibleTo; never their own), comments by others on their own moments, and replies
// (comments by others on a moment of someone else's where the reader commented before); none by a
// user in a block with the reader (whereNoBlockWith). Each moment with its kid's name and age, its
// title, who posted it, a link, and a small thumbnail embedded in the message (./digest-mail.server.ts).
// Nothing new: nothing sent. The scheduler claims a due digest atomically (several processes).

export const DIGEST_MAX_ITEMS = 20;

type Period = { viewer: number; since: string; until: string };
type Named<Prefix extends string> = {
  [F in "username" | "first_name" | "last_name" as `${Prefix}${F}`]: UserRow[F];
};

const newMoments = query<
  Period,
  Pick<MomentRow, "id" | "title" | "posted_by"> &
    Pick<KidRow, "birth_date"> & { owner_id: KidRow["user_id"]; kid_name: KidRow["name"] } & Named<"owner_"> &
    Named<"poster_"> & {
      image_key: ImageRow["key"] | null;
      image_widths: ImageRow["widths"] | null;
      video_count: MomentRow["video_count"];
    }
>((p, k) =>
  whereMomentVisibleTo(
    k("daily_logs")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .join("users as owner", "owner.id", "kids.user_id")
      // moments from before posters were recorded have none: the owner posted them
      .leftJoin("users as poster", "poster.id", "daily_logs.posted_by")
      .leftJoin("images", "images.id", "daily_logs.image_id")
      .where("daily_logs.created_at", ">", p("since"))
      .andWhere("daily_logs.created_at", "<=", p("until"))
      .andWhereNot("kids.user_id", p("viewer")),
    p("viewer"),
  )
    .orderBy([
      { column: "daily_logs.created_at", order: "desc" },
      { column: "daily_logs.id", order: "desc" },
    ])
    .limit(DIGEST_MAX_ITEMS)
    .select(
      "daily_logs.id",
      "daily_logs.title",
      "daily_logs.posted_by",
      "kids.user_id as owner_id",
      "kids.name as kid_name",
      "kids.birth_date",
      "owner.username as owner_username",
      "owner.first_name as owner_first_name",
      "owner.last_name as owner_last_name",
      "poster.username as poster_username",
      "poster.first_name as poster_first_name",
      "poster.last_name as poster_last_name",
      "images.key as image_key",
      "images.widths as image_widths",
      "daily_logs.video_count",
    ),
);

type CommentNews = Pick<CommentRow, "daily_log_id" | "comment" | "user_id"> & Pick<MomentRow, "title"> & Named<"">;

/** Comments by others in the period, by people not in a block with the reader, as the moments show them. */
function newComments(mine: boolean) {
  return query<Period, CommentNews>((p, k) =>
    whereNoBlockWith(
      k("comments")
        .join("daily_logs", "daily_logs.id", "comments.daily_log_id")
        .join("kids", "kids.id", "daily_logs.kid_id")
        .join("users as author", "author.id", "comments.user_id")
        .andWhereNot("comments.user_id", p("viewer"))
        .andWhere("comments.created_at", ">", p("since"))
        .andWhere("comments.created_at", "<=", p("until"))
        .modify((q) => {
          if (mine) return void q.where("kids.user_id", p("viewer"));
          // a reply: on someone else's moment the reader may see, where the reader commented before
          whereMomentVisibleTo(q.whereNot("kids.user_id", p("viewer")), p("viewer")).whereExists((earlier) =>
            earlier
              .select(k.raw("1"))
              .from("comments as mine")
              .where("mine.daily_log_id", k.ref("comments.daily_log_id"))
              .andWhere("mine.user_id", p("viewer"))
              .andWhere("mine.id", "<", k.ref("comments.id")),
          );
        }),
      "comments.user_id",
      p("viewer"),
    )
      .orderBy([
        { column: "comments.created_at", order: "desc" },
        { column: "comments.id", order: "desc" },
      ])
      .limit(DIGEST_MAX_ITEMS)
      // the comments shown on the moments: none a (former) owner of the kid hid by a block
      .modify((q) => void whereCommentShown(q))
      .select(
        "comments.daily_log_id",
        "comments.comment",
        "daily_logs.title",
        "comments.user_id",
        "author.username",
        "author.first_name",
        "author.last_name",
      ),
  );
}
const newCommentsOnMine = newComments(true);
const newReplies = newComments(false);

const asComment = (r: CommentNews): DigestComment => ({
  momentId: r.daily_log_id,
  momentTitle: r.title,
  authorId: r.user_id,
  authorName: displayName(r),
  text: r.comment,
});

const thumbnailSource = (widths: number[]) => widths.find((w) => w >= THUMBNAIL_PIXELS) ?? Math.max(...widths);

/** Every kind of news in the digest (a test's or a caller's shorthand). */
const ALL_IN_DIGEST: Record<NewsKind, Delivery> = { moments: "digest", comments: "digest", replies: "digest" };

/** What is new for `userId` between `since` (exclusive) and `until`, of the kinds `kinds` puts in the digest. */
export async function digestContent(
  userId: number,
  since: string,
  until: string,
  kinds: Record<NewsKind, Delivery> = ALL_IN_DIGEST,
): Promise<DigestContent> {
  const day = today();
  const period = { viewer: userId, since, until };
  const wanted = <T>(kind: NewsKind, read: () => Promise<T[]>) =>
    kinds[kind] === "digest" ? read() : Promise.resolve([]);
  const [moments, comments, replies] = await Promise.all([
    wanted("moments", () => newMoments.all(period)),
    wanted("comments", () => newCommentsOnMine.all(period)),
    wanted("replies", () => newReplies.all(period)),
  ]);
  // a moment of clips alone shows its first clip's poster (docs/decisions/0064-video-clips.md)
  const posters = await clipPosters(moments.filter((m) => !m.image_key && m.video_count > 0).map((m) => m.id));
  return {
    moments: moments.map((r) => {
      const poster = posters.get(r.id);
      const widths = (r.image_widths ?? poster?.widths ?? "")
        .split(",")
        .map(Number)
        .filter((n) => n > 0);
      const owner = { username: r.owner_username, first_name: r.owner_first_name, last_name: r.owner_last_name };
      return {
        id: r.id,
        title: r.title,
        kidName: r.kid_name,
        kidAge: ageText(r.birth_date, day),
        posterName: displayName(
          r.poster_username === null
            ? owner
            : { username: r.poster_username, first_name: r.poster_first_name, last_name: r.poster_last_name },
        ),
        userIds: [r.owner_id, ...(r.posted_by == null ? [] : [r.posted_by])],
        // the smallest stored size that makes a sharp thumbnail
        photo:
          (r.image_key ?? poster?.key) && widths.length
            ? { key: (r.image_key ?? poster?.key)!, width: thumbnailSource(widths) }
            : null,
        hasVideo: r.video_count > 0,
      };
    }),
    comments: comments.map(asComment),
    replies: replies.map(asComment),
  };
}

const firstPosters = query<{ ids: number[] }, { daily_log_id: number; key: string; widths: string }>((p, k) =>
  inList(
    k("videos").join("images", "images.id", "videos.poster_image_id").where("videos.status", "ready"),
    "videos.daily_log_id",
    p("ids"),
  )
    .orderBy([{ column: "videos.daily_log_id" }, { column: "videos.position" }])
    .select("videos.daily_log_id", "images.key", "images.widths"),
);

/** The poster of each moment's first prepared clip, by moment. */
async function clipPosters(ids: number[]): Promise<Map<number, { key: string; widths: string }>> {
  const out = new Map<number, { key: string; widths: string }>();
  if (!ids.length) return out;
  for (const r of await firstPosters.all({ ids })) if (!out.has(r.daily_log_id)) out.set(r.daily_log_id, r);
  return out;
}

const dueDigests = query<
  { now: string },
  Pick<EmailPreferenceRow, "user_id" | "hour" | "last_digest_at"> &
    Pick<EmailPreferenceRow, NewsKind> &
    Pick<UserRow, "email"> & {
      // the query takes only digests that are on and due
      digest: EmailPreferenceRow["digest"];
      next_digest_at: string;
    }
>((p, k) =>
  k("email_preferences")
    .join("users", "users.id", "email_preferences.user_id")
    .where((kinds) =>
      kinds
        .where("email_preferences.moments", "digest")
        .orWhere("email_preferences.comments", "digest")
        .orWhere("email_preferences.replies", "digest"),
    )
    .andWhere("email_preferences.next_digest_at", "<=", p("now"))
    .orderBy([{ column: "email_preferences.next_digest_at" }, { column: "email_preferences.user_id" }])
    .limit(50)
    .select(
      "email_preferences.user_id",
      "email_preferences.digest",
      "email_preferences.hour",
      "email_preferences.next_digest_at",
      "email_preferences.last_digest_at",
      "email_preferences.moments",
      "email_preferences.comments",
      "email_preferences.replies",
      "users.email",
    ),
);

/**
 * Sends (queues) every digest due at `now`. Each is claimed by a compare-and-set UPDATE that moves
 * next_digest_at on: of several schedulers on one database exactly one wins each digest. The news
 * start moves (last_digest_at) in the transaction that queues the message, so a scheduler dying
 * between claim and queue loses nothing: the next digest carries it. Answers how many were queued.
 */
export async function sendDueDigests(now: Date = new Date(), origin: string = siteOrigin()): Promise<number> {
  let queued = 0;
  const due = await dueDigests.all({ now: now.toISOString() });
  for (const row of due) {
    const userId = row.user_id;
    const digest: DigestChoice = row.digest === "weekly" ? "weekly" : "daily";
    const next = nextDigestSlot(now, row.hour, digest).toISOString();
    const claimed = await writeTransaction((trx) =>
      trx("email_preferences")
        .where({ user_id: userId, digest: row.digest, next_digest_at: row.next_digest_at })
        .update({ next_digest_at: next }),
    );
    if (claimed !== 1) continue; // another scheduler has it
    const until = nowIso();
    const content = await digestContent(userId, row.last_digest_at, until, row);
    if (!content.moments.length && !content.comments.length && !content.replies.length) continue; // nothing new, nothing sent
    const mail = await digestMail({ id: userId, email: row.email }, content, origin, digest);
    await writeTransaction(async (trx) => {
      await enqueueMail(trx, mail);
      await trx("email_preferences").where("user_id", userId).update({ last_digest_at: until });
    });
    queued += 1;
  }
  return queued;
}

/** The digest scheduler of a server process: a round now and every `intervalMs` (DIGEST_CHECK_SECONDS). */
export function startDigestScheduler({
  intervalMs = config().digestCheckSeconds * 1000,
}: {
  intervalMs?: number;
} = {}): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const round = () => {
    if (running) return;
    running = sendDueDigests()
      .catch((error) => console.error("[mail] digest round failed", error))
      .finally(() => (running = null));
  };
  const timer = setInterval(round, intervalMs);
  timer.unref();
  round();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
