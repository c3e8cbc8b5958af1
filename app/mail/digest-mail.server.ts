import { href } from "react-router";
import { indentedLines, oneLine } from "~/lib/one-line";
import { photoStore } from "~/images/photo-store.server";
import { loadSharp } from "~/images/sharp.server";
import type { DigestChoice } from "~/models/email-preferences.server";
import { escapeHtml, newsFooter, page } from "./messages.server";
import type { InlineAttachment, OutgoingMail } from "./queue.server";

// The digest as a message (docs/decisions/0027-email-digests.md, 0062): HTML for screen readers
// (headings, lists, alt text) and the same as plain text. Each moment's thumbnail is embedded
// (cid:), re-encoded from the photo store's smallest derivative: no public photo URL, no metadata.

/** How wide (CSS pixels, at most) a thumbnail shows in the message. */
export const THUMBNAIL_PX = 160;
/** Its pixels: twice that, so it is sharp on a phone's screen (two or three pixels per CSS pixel). */
export const THUMBNAIL_PIXELS = THUMBNAIL_PX * 2;

/** `userIds`: the kid's owner and the poster (whose content the message carries: docs/decisions/0025). */
export type DigestMoment = {
  id: number;
  title: string;
  kidName: string;
  kidAge: string;
  /** Who posted it (the owner or a co-parent), by their name. */
  posterName: string;
  userIds: number[];
  photo: { key: string; width: number } | null;
  /** It has a clip: the digest says so (a clip itself is never mailed). */
  hasVideo?: boolean;
};
export type DigestComment = {
  momentId: number;
  momentTitle: string;
  authorId: number;
  authorName: string;
  text: string;
};
export type DigestContent = { moments: DigestMoment[]; comments: DigestComment[]; replies: DigestComment[] };

type Thumbnail = InlineAttachment & { width: number; height: number };

/** A moment's thumbnail as an inline JPEG (sharp re-encodes: no EXIF, no location), or null if unreadable. */
async function thumbnail(moment: DigestMoment): Promise<Thumbnail | null> {
  if (!moment.photo) return null;
  const file = await photoStore().open(moment.photo.key, `${moment.photo.width}.webp`);
  if (!file) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream) chunks.push(chunk as Buffer);
  const sharp = await loadSharp();
  const { data, info } = await sharp(Buffer.concat(chunks))
    .resize({ width: THUMBNAIL_PIXELS, height: THUMBNAIL_PIXELS, fit: "inside", withoutEnlargement: true })
    .jpeg({ quality: 70 })
    .toBuffer({ resolveWithObject: true });
  // shown at half its pixels (its own shape, never stretched), a small one at its own size
  const scale = Math.max(info.width, info.height) > THUMBNAIL_PX ? 2 : 1;
  return {
    cid: `moment-${moment.id}@sweet-moments`,
    filename: `moment-${moment.id}.jpg`,
    contentType: "image/jpeg",
    content: data,
    width: Math.round(info.width / scale),
    height: Math.round(info.height / scale),
  };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "2 new moments, 1 comment, 1 reply": only what there is. */
export function digestSummary(content: DigestContent): string {
  return [
    content.moments.length ? plural(content.moments.length, "new moment", "new moments") : "",
    content.comments.length ? plural(content.comments.length, "comment", "comments") : "",
    content.replies.length ? plural(content.replies.length, "reply", "replies") : "",
  ]
    .filter(Boolean)
    .join(", ");
}

/** The digest message. */
export async function digestMail(
  user: { id: number; email: string },
  content: DigestContent,
  origin: string,
  digest: DigestChoice,
): Promise<OutgoingMail> {
  const attachments: InlineAttachment[] = [];
  const thumbs = new Map<number, Thumbnail>();
  for (const m of content.moments) {
    const image = await thumbnail(m);
    if (image) {
      const { width: _w, height: _h, ...attachment } = image;
      attachments.push(attachment);
      thumbs.set(m.id, image);
    }
  }
  const subject = `Your ${digest} Sweet Moments: ${digestSummary(content)}`;
  const link = (id: number) => `${origin}${href("/dailyLogs/:momentId", { momentId: String(id) })}`;
  const footer = newsFooter(origin, user.id);
  const age = (m: DigestMoment) => (m.kidAge ? `${m.kidName}, ${m.kidAge}` : m.kidName);
  const commentSections = [
    { title: "Comments on your moments", items: content.comments },
    { title: "Replies where you commented", items: content.replies },
  ].filter((s) => s.items.length);

  // the text part: one line per name and title (also from rows older than the one-line rule), and
  // a comment's own lines indented, so nothing a user wrote can stand at the margin as a line of ours
  const line = oneLine;
  const commentLines = (c: DigestComment) => [
    `- ${line(c.authorName)} on "${line(c.momentTitle)}": ${indentedLines(c.text, "    ")}`,
    `  ${link(c.momentId)}`,
  ];
  const text = [
    subject,
    "",
    ...(content.moments.length
      ? [
          "New moments",
          ...content.moments.flatMap((m) => [
            `- ${line(m.title)}${m.hasVideo ? " (video)" : ""} (${line(age(m))}, shared by ${line(m.posterName)})`,
            `  ${link(m.id)}`,
          ]),
          "",
        ]
      : []),
    ...commentSections.flatMap((s) => [s.title, ...s.items.flatMap(commentLines), ""]),
    footer.text,
  ].join("\n");

  const momentItems = content.moments
    .map((m) => {
      const t = thumbs.get(m.id);
      const img = t
        ? `<img src="cid:${escapeHtml(t.cid)}" alt="Photo: ${escapeHtml(m.title)}" width="${t.width}" height="${t.height}" style="display:block;max-width:100%;height:auto;border-radius:6px">`
        : "";
      const video = m.hasVideo
        ? ' <span style="display:inline-block;padding:0 .35em;border-radius:4px;background:#222;color:#fff;font-size:.8em">▶ Video</span>'
        : "";
      return `<li style="margin:0 0 1.25em">${img}<h3 style="margin:.4em 0 .1em;font-size:1.1em"><a href="${escapeHtml(link(m.id))}">${escapeHtml(m.title)}</a>${video}</h3><p style="margin:0">${escapeHtml(age(m))} · shared by ${escapeHtml(m.posterName)}</p></li>`;
    })
    .join("");
  const commentItems = (items: DigestComment[]) =>
    items
      .map(
        (c) =>
          `<li style="margin:0 0 .75em"><a href="${escapeHtml(link(c.momentId))}">${escapeHtml(c.momentTitle)}</a>: ${escapeHtml(c.authorName)} wrote “${escapeHtml(c.text)}”</li>`,
      )
      .join("");
  const html = page(
    subject,
    `<h1 style="font-size:1.4em">${escapeHtml(subject)}</h1>
${content.moments.length ? `<h2 style="font-size:1.2em">New moments</h2><ul style="list-style:none;padding:0">${momentItems}</ul>` : ""}
${commentSections.map((s) => `<h2 style="font-size:1.2em">${s.title}</h2><ul>${commentItems(s.items)}</ul>`).join("\n")}
${footer.html}`,
  );
  const comments = [...content.comments, ...content.replies];
  return {
    kind: "digest",
    to: user.email,
    subject,
    text,
    html,
    headers: footer.headers,
    attachments,
    users: [user.id, ...content.moments.flatMap((m) => m.userIds), ...comments.map((c) => c.authorId)],
  };
}
