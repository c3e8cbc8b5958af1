import { href } from "react-router";
import type { KidRow, MomentRow, UserRow } from "~/lib/tables";
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

/** Of `ids`, those who chose "now" for `column`, may see the moment and are in no block with the actor. */
function wantingNow(column: NewsKind) {
  return query<RecipientParams, Pick<UserRow, "id" | "email">>((p, k) =>
    whereNoBlockWith(
      inList(k("users").join("email_preferences", "email_preferences.user_id", "users.id"), "users.id", p("ids"))
        .where(`email_preferences.${column}`, "now")
        .modify((q) => void whereUserSeesMoment(q, "users.id", p("momentId"))),
      "users.id",
      p("actorId"),
    )
      .orderBy("users.id")
      .select("users.id", "users.email"),
  );
}
const RECIPIENTS = { moments: wantingNow("moments"), comments: wantingNow("comments"), replies: wantingNow("replies") };

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
  const recipients = await RECIPIENTS[COLUMN[news.kind]].all(params, { conn });
  if (!recipients.length) return 0;
  const row = await aboutMoment.first({ momentId: news.momentId, actorId: news.actorId }, { conn });
  if (!row) return 0;
  const about = { title: row.title, kidName: row.kid_name, actorName: displayName(row) };
  for (const to of recipients) await enqueueMail(conn, newsMail(to, news, about, origin));
  return recipients.length;
}
