import { href } from "react-router";
import type { Knex } from "knex";
import type { CommentRow, KidRow, MomentRow, UserRow } from "~/lib/tables";
import type { Db } from "~/lib/db.server";
import { inList, query } from "~/lib/query.server";
import { siteOrigin } from "~/lib/config.server";
import { displayName } from "~/lib/names";
import { indentedLines, oneLine } from "~/lib/one-line";
import { whereNoBlockWith, whereUserSeesMoment } from "~/models/access.server";
import type { NewsKind } from "~/models/email-preferences.server";
import { escapeHtml, newsFooter, page } from "./messages.server";
import { enqueueMail, type OutgoingMail } from "./queue.server";

// The mails sent "right away" (docs/decisions/0062-new-moments-and-notification-choices.md): to
// whoever chose "now" for a kind of news, one message per event and recipient, queued in the
// transaction that made the news (so only if it commits; the mail queue's sender delivers it,
// docs/decisions/0025-mail-queue.md). A moment with ten photos is one event: one mail. Only to
// people who may see the moment now (the access module's whereUserSeesMoment) and are in no
// block with the one who acted (whereNoBlockWith). No photo in the message: it is made inside the
// posting transaction, and the photo is one tap away behind the log-in.

/** A piece of news: a new moment, a comment on the recipient's moment, a reply where they commented. */
export type News =
  | { kind: "moment"; momentId: number; actorId: number }
  | { kind: "comment" | "reply"; momentId: number; actorId: number; text: string };

const COLUMN: Record<News["kind"], NewsKind> = { moment: "moments", comment: "comments", reply: "replies" };

type RecipientParams = { ids: number[]; momentId: number; actorId: number };

/**
 * The users of `among` (a condition on `users.id`) who chose "now" for `column`, may see the moment
 * and are in no block with the actor (the caller selects their columns).
 */
function wanting(
  k: Knex,
  column: NewsKind,
  momentId: string,
  actorId: string,
  among: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
): Knex.QueryBuilder {
  return whereNoBlockWith(
    among(k("users").join("email_preferences", "email_preferences.user_id", "users.id"))
      .where(`email_preferences.${column}`, "now")
      .modify((q) => void whereUserSeesMoment(q, "users.id", momentId)),
    "users.id",
    actorId,
  );
}

/** Of `ids`, those who chose "now" for `column`, may see the moment and are in no block with the actor. */
function wantingNow(column: NewsKind) {
  return query<RecipientParams, Pick<UserRow, "id" | "email">>((p, k) =>
    wanting(k, column, p("momentId"), p("actorId"), (q) => inList(q, "users.id", p("ids")))
      .orderBy("users.id")
      .select("users.id", "users.email"),
  );
}
const RECIPIENTS = { moments: wantingNow("moments"), comments: wantingNow("comments"), replies: wantingNow("replies") };

/**
 * Everyone who commented on the moment before, but its owner and the one commenting now, each with
 * their address when they want replies right away (`email` null otherwise): the reply's notifications
 * and mails in ONE read of the comment's write transaction, which holds the database's one writer
 * (a second read there cost comment creation 17 % of its rate on the bench). The moment's comments
 * are read once; the choice of mail is asked of each commenter.
 */
const commentersOf = query<
  { momentId: number; ownerId: number; actorId: number },
  { id: CommentRow["user_id"]; email: UserRow["email"] | null }
>((p, k) =>
  k
    .from(
      k("comments")
        .where("comments.daily_log_id", p("momentId"))
        .whereNot("comments.user_id", p("ownerId"))
        .whereNot("comments.user_id", p("actorId"))
        .distinct("comments.user_id")
        .as("c"),
    )
    .orderBy("c.user_id")
    .select(
      "c.user_id as id",
      wanting(k, "replies", p("momentId"), p("actorId"), (q) => q.where("users.id", k.ref("c.user_id")))
        .select("users.email")
        .as("email"),
    ),
);

/**
 * On `conn` (the comment's transaction): the earlier commenters of the moment (neither its owner nor
 * `actorId`), and of them the recipients of a "reply" mail right away (as mailNewsNow would choose them).
 */
export async function earlierCommenters(
  conn: Db,
  momentId: number,
  ownerId: number,
  actorId: number,
): Promise<{ ids: number[]; wantMail: Pick<UserRow, "id" | "email">[] }> {
  const rows = await commentersOf.all({ momentId, ownerId, actorId }, { conn });
  return {
    ids: rows.map((r) => r.id),
    wantMail: rows.flatMap((r) => (r.email === null ? [] : [{ id: r.id, email: r.email }])),
  };
}

const aboutMoment = query<
  { momentId: number; actorId: number },
  Pick<MomentRow, "title"> & { kid_name: KidRow["name"] } & Pick<UserRow, "username" | "first_name" | "last_name">
>((p, k) =>
  k("daily_logs")
    .join("kids", "kids.id", "daily_logs.kid_id")
    .join("users", (j) => j.onVal("users.id", p("actorId")))
    .where("daily_logs.id", p("momentId"))
    .first("daily_logs.title", "kids.name as kid_name", "users.username", "users.first_name", "users.last_name"),
);

/** The message of one piece of news to one person. */
export function newsMail(
  to: { id: number; email: string },
  news: News,
  about: { title: string; kidName: string; actorName: string },
  origin: string,
): OutgoingMail {
  const who = oneLine(about.actorName);
  const title = oneLine(about.title);
  const subject = (
    news.kind === "moment"
      ? `${who} shared a new moment of ${oneLine(about.kidName)}: “${title}”`
      : news.kind === "comment"
        ? `${who} commented on “${title}”`
        : `${who} also commented on “${title}”`
  ).slice(0, 250);
  const link = `${origin}${href("/dailyLogs/:momentId", { momentId: String(news.momentId) })}`;
  const footer = newsFooter(origin, to.id);
  const said = news.kind === "moment" ? null : news.text;
  const text = [
    subject,
    ...(said === null ? [] : ["", `${who} wrote:`, `  ${indentedLines(said, "  ")}`]),
    "",
    `See it on Sweet Moments: ${link}`,
    "",
    footer.text,
  ].join("\n");
  const html = page(
    subject,
    `<h1 style="font-size:1.3em">${escapeHtml(subject)}</h1>
${said === null ? "" : `<p>${escapeHtml(who)} wrote:</p><blockquote>${escapeHtml(said)}</blockquote>`}
<p><a href="${escapeHtml(link)}">See it on Sweet Moments</a></p>
${footer.html}`,
  );
  return {
    kind: `news-${news.kind}`,
    to: to.email,
    subject,
    text,
    html,
    headers: footer.headers,
    users: [to.id, news.actorId],
  };
}

/**
 * Queues, on `conn` (the transaction that made the news), a mail to each of `userIds` who wants
 * this kind of news right away. Answers how many were queued.
 */
export async function mailNewsNow(conn: Db, news: News, userIds: number[], origin = siteOrigin()): Promise<number> {
  if (!userIds.length) return 0;
  const params = { ids: userIds, momentId: news.momentId, actorId: news.actorId };
  return mailNewsTo(conn, news, await RECIPIENTS[COLUMN[news.kind]].all(params, { conn }), origin);
}

/** Queues, on `conn`, the mail of `news` to each of `recipients` (chosen as mailNewsNow chooses them). */
export async function mailNewsTo(
  conn: Db,
  news: News,
  recipients: Pick<UserRow, "id" | "email">[],
  origin = siteOrigin(),
): Promise<number> {
  if (!recipients.length) return 0;
  const row = await aboutMoment.first({ momentId: news.momentId, actorId: news.actorId }, { conn });
  if (!row) return 0;
  const about = { title: row.title, kidName: row.kid_name, actorName: displayName(row) };
  for (const to of recipients) await enqueueMail(conn, newsMail(to, news, about, origin));
  return recipients.length;
}
