import { href } from "react-router";
import type { CommentRow, EmailPreferenceRow, ImageRow, KidRow, MomentRow, UserRow } from "~/lib/tables";
import { nowIso, writeTransaction } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { config, siteOrigin } from "~/lib/config.server";
import { ageText } from "~/lib/dates";
import { today } from "~/lib/dates.server";
import { displayName } from "~/lib/names";
import { indentedLines, oneLine } from "~/lib/one-line";
import { signForUser } from "~/lib/tokens.server";
import { photoStore } from "~/images/photo-store.server";
import { loadSharp } from "~/images/sharp.server";
import { whereCommentShown, whereMomentVisibleTo, whereNoBlockWith } from "~/models/access.server";
import { nextDigestSlot, type DigestChoice } from "~/models/email-preferences.server";
import { escapeHtml } from "./messages.server";
import { enqueueMail, type InlineAttachment, type OutgoingMail } from "./queue.server";

// Email digests (docs/spec.md "Email digests", docs/decisions/0027-email-digests.md).
// What is new since the reader's last digest: moments they may see (the access module's
// whereMomentVisibleTo; never their own), and comments by others on their own moments (none by a
// user in a block with the reader: whereNoBlockWith). Each moment
// with its kid's name and age, its title, a link, and a small thumbnail embedded in the message
// (cid:), re-encoded from the photo store's smallest derivative: no public photo URL, no metadata.
// Nothing new: nothing sent. The scheduler claims a due digest atomically (several processes).

export const DIGEST_MAX_ITEMS = 20;
export const THUMBNAIL_PX = 160;

/** `userIds`: the kid's owner and the poster (whose content the message carries: docs/decisions/0025). */
export type DigestMoment = {
  id: number;
  title: string;
  kidName: string;
  kidAge: string;
  ownerName: string;
  userIds: number[];
  photo: { key: string; width: number } | null;
};
export type DigestComment = {
  momentId: number;
  momentTitle: string;
  authorId: number;
  authorName: string;
  text: string;
};
export type DigestContent = { moments: DigestMoment[]; comments: DigestComment[] };

type Period = { viewer: number; since: string; until: string };
type Named<Prefix extends string> = {
  [F in "username" | "first_name" | "last_name" as `${Prefix}${F}`]: UserRow[F];
};

const newMoments = query<
  Period,
  Pick<MomentRow, "id" | "title" | "posted_by"> &
    Pick<KidRow, "birth_date"> & { owner_id: KidRow["user_id"]; kid_name: KidRow["name"] } & Named<"owner_"> & {
      image_key: ImageRow["key"] | null;
      image_widths: ImageRow["widths"] | null;
    }
>((p, k) =>
  whereMomentVisibleTo(
    k("daily_logs")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .join("users as owner", "owner.id", "kids.user_id")
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
      "images.key as image_key",
      "images.widths as image_widths",
    ),
);

const newCommentsOnMine = query<
  Period,
  Pick<CommentRow, "daily_log_id" | "comment" | "user_id"> & Pick<MomentRow, "title"> & Named<"">
>((p, k) =>
  whereNoBlockWith(
    k("comments")
      .join("daily_logs", "daily_logs.id", "comments.daily_log_id")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .join("users as author", "author.id", "comments.user_id")
      .where("kids.user_id", p("viewer"))
      .andWhereNot("comments.user_id", p("viewer"))
      .andWhere("comments.created_at", ">", p("since"))
      .andWhere("comments.created_at", "<=", p("until")),
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

/** What is new for `userId` between `since` (exclusive) and `until`. */
export async function digestContent(userId: number, since: string, until: string): Promise<DigestContent> {
  const day = today();
  const [moments, comments] = await Promise.all([
    newMoments.all({ viewer: userId, since, until }),
    newCommentsOnMine.all({ viewer: userId, since, until }),
  ]);
  return {
    moments: moments.map((r) => {
      const widths = (r.image_widths ?? "")
        .split(",")
        .map(Number)
        .filter((n) => n > 0);
      return {
        id: r.id,
        title: r.title,
        kidName: r.kid_name,
        kidAge: ageText(r.birth_date, day),
        ownerName: displayName({
          username: r.owner_username,
          first_name: r.owner_first_name,
          last_name: r.owner_last_name,
        }),
        userIds: [r.owner_id, ...(r.posted_by == null ? [] : [r.posted_by])],
        photo: r.image_key && widths.length ? { key: r.image_key, width: widths[0]! } : null,
      };
    }),
    comments: comments.map((r) => ({
      momentId: r.daily_log_id,
      momentTitle: r.title,
      authorId: r.user_id,
      authorName: displayName(r),
      text: r.comment,
    })),
  };
}

/** A moment's thumbnail as an inline JPEG (sharp re-encodes: no EXIF, no location), or null if unreadable. */
async function thumbnail(moment: DigestMoment): Promise<InlineAttachment | null> {
  if (!moment.photo) return null;
  const file = await photoStore().open(moment.photo.key, `${moment.photo.width}.webp`);
  if (!file) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream) chunks.push(chunk as Buffer);
  const sharp = await loadSharp();
  const content = await sharp(Buffer.concat(chunks))
    .resize({ width: THUMBNAIL_PX, height: THUMBNAIL_PX, fit: "inside" })
    .jpeg({ quality: 70 })
    .toBuffer();
  return {
    cid: `moment-${moment.id}@sweet-moments`,
    filename: `moment-${moment.id}.jpg`,
    contentType: "image/jpeg",
    content,
  };
}

export function unsubscribeUrl(origin: string, userId: number): string {
  return `${origin}${href("/email/unsubscribe")}?u=${userId}&s=${signForUser("unsubscribe", userId)}`;
}

/** The digest message: HTML for screen readers (headings, lists, alt text) and the same as plain text. */
export async function digestMail(
  user: { id: number; email: string },
  content: DigestContent,
  origin: string,
  digest: Exclude<DigestChoice, "none">,
): Promise<OutgoingMail> {
  const attachments: InlineAttachment[] = [];
  const cids = new Map<number, string>();
  for (const m of content.moments) {
    const image = await thumbnail(m);
    if (image) {
      attachments.push(image);
      cids.set(m.id, image.cid);
    }
  }
  const subject = `Your ${digest} Sweet Moments: ${content.moments.length} new moment${content.moments.length === 1 ? "" : "s"}${content.comments.length ? `, ${content.comments.length} comment${content.comments.length === 1 ? "" : "s"}` : ""}`;
  const link = (id: number) => `${origin}${href("/dailyLogs/:momentId", { momentId: String(id) })}`;
  const unsubscribe = unsubscribeUrl(origin, user.id);
  const age = (m: DigestMoment) => (m.kidAge ? `${m.kidName}, ${m.kidAge}` : m.kidName);

  // the text part: one line per name and title (also from rows older than the one-line rule), and
  // a comment's own lines indented, so nothing a user wrote can stand at the margin as a line of ours
  const line = oneLine;
  const text = [
    subject,
    "",
    ...(content.moments.length
      ? [
          "New moments",
          ...content.moments.flatMap((m) => [
            `- ${line(m.title)} (${line(age(m))}, shared by ${line(m.ownerName)})`,
            `  ${link(m.id)}`,
          ]),
          "",
        ]
      : []),
    ...(content.comments.length
      ? [
          "Comments on your moments",
          ...content.comments.flatMap((c) => [
            `- ${line(c.authorName)} on "${line(c.momentTitle)}": ${indentedLines(c.text, "    ")}`,
            `  ${link(c.momentId)}`,
          ]),
          "",
        ]
      : []),
    `Change how often you get this: ${origin}${href("/settings/email")}`,
    `Unsubscribe: ${unsubscribe}`,
  ].join("\n");

  const momentItems = content.moments
    .map((m) => {
      const cid = cids.get(m.id);
      const img = cid
        ? `<img src="cid:${escapeHtml(cid)}" alt="Photo: ${escapeHtml(m.title)}" width="${THUMBNAIL_PX}" style="display:block;max-width:${THUMBNAIL_PX}px;height:auto;border-radius:6px">`
        : "";
      return `<li style="margin:0 0 1.25em">${img}<h3 style="margin:.4em 0 .1em;font-size:1.1em"><a href="${escapeHtml(link(m.id))}">${escapeHtml(m.title)}</a></h3><p style="margin:0">${escapeHtml(age(m))} · shared by ${escapeHtml(m.ownerName)}</p></li>`;
    })
    .join("");
  const commentItems = content.comments
    .map(
      (c) =>
        `<li style="margin:0 0 .75em"><a href="${escapeHtml(link(c.momentId))}">${escapeHtml(c.momentTitle)}</a>: ${escapeHtml(c.authorName)} wrote “${escapeHtml(c.text)}”</li>`,
    )
    .join("");
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body style="font-family:sans-serif;font-size:16px;line-height:1.5;color:#222;max-width:36em;margin:0 auto;padding:1em">
<h1 style="font-size:1.4em">${escapeHtml(subject)}</h1>
${content.moments.length ? `<h2 style="font-size:1.2em">New moments</h2><ul style="list-style:none;padding:0">${momentItems}</ul>` : ""}
${content.comments.length ? `<h2 style="font-size:1.2em">Comments on your moments</h2><ul>${commentItems}</ul>` : ""}
<p><a href="${escapeHtml(origin)}${href("/settings/email")}">Change how often you get this</a> · <a href="${escapeHtml(unsubscribe)}">Unsubscribe</a></p>
</body></html>`;
  return {
    kind: "digest",
    to: user.email,
    subject,
    text,
    html,
    headers: { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    attachments,
    users: [user.id, ...content.moments.flatMap((m) => m.userIds), ...content.comments.map((c) => c.authorId)],
  };
}

const dueDigests = query<
  { now: string },
  Pick<EmailPreferenceRow, "user_id" | "hour" | "last_digest_at"> &
    Pick<UserRow, "email"> & {
      // the query takes only digests that are on and due
      digest: Exclude<EmailPreferenceRow["digest"], "none">;
      next_digest_at: string;
    }
>((p, k) =>
  k("email_preferences")
    .join("users", "users.id", "email_preferences.user_id")
    .whereNot("email_preferences.digest", "none")
    .andWhere("email_preferences.next_digest_at", "<=", p("now"))
    .orderBy([{ column: "email_preferences.next_digest_at" }, { column: "email_preferences.user_id" }])
    .limit(50)
    .select(
      "email_preferences.user_id",
      "email_preferences.digest",
      "email_preferences.hour",
      "email_preferences.next_digest_at",
      "email_preferences.last_digest_at",
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
    const digest = row.digest;
    const next = nextDigestSlot(now, row.hour, digest).toISOString();
    const claimed = await writeTransaction((trx) =>
      trx("email_preferences")
        .where({ user_id: userId, digest, next_digest_at: row.next_digest_at })
        .update({ next_digest_at: next }),
    );
    if (claimed !== 1) continue; // another scheduler has it
    const until = nowIso();
    const content = await digestContent(userId, row.last_digest_at, until);
    if (!content.moments.length && !content.comments.length) continue; // nothing new, nothing sent
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
