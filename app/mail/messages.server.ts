import { href } from "react-router";
import { indentedLines, oneLine } from "~/lib/one-line";
import { listText } from "~/lib/names";
import { signForUser } from "~/lib/tokens.server";
import type { OutgoingMail } from "./queue.server";

// The one-off emails (an invitation, its answer, an email change, a sign-in link; digests are in
// ./digest.server.ts), each as plain text and simple HTML (one column, real headings and link text,
// no images). Links are absolute: the caller passes the site's origin.

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/**
 * A message's HTML document: one column, with a viewport so a phone's mail app shows it at the
 * phone's width instead of a shrunk desktop page.
 */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;font-size:16px;line-height:1.5;color:#222;max-width:36em;margin:0 auto;padding:1em">${body}</body></html>`;
}

/** The signed one-click unsubscribe link of `userId` (docs/decisions/0027-email-digests.md). */
export function unsubscribeUrl(origin: string, userId: number): string {
  return `${origin}${href("/email/unsubscribe")}?u=${userId}&s=${signForUser("unsubscribe", userId)}`;
}

/**
 * What every mail about news (digests, right-away mails) ends with: where to change what one gets,
 * the one-click unsubscribe link (text and HTML), and the List-Unsubscribe headers (RFC 8058).
 */
export function newsFooter(
  origin: string,
  userId: number,
): { text: string; html: string; headers: Record<string, string> } {
  const unsubscribe = unsubscribeUrl(origin, userId);
  const settings = `${origin}${href("/settings/email")}`;
  return {
    text: `Change what you get by email: ${settings}\nUnsubscribe: ${unsubscribe}`,
    html: `<p><a href="${escapeHtml(settings)}">Change what you get by email</a> · <a href="${escapeHtml(unsubscribe)}">Unsubscribe</a></p>`,
    headers: { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}

function button(url: string, label: string): string {
  return `<p><a href="${escapeHtml(url)}" style="display:inline-block;background:#8a3b5c;color:#fff;padding:.6em 1.2em;border-radius:6px;text-decoration:none">${escapeHtml(label)}</a></p><p>Or copy this address into your browser:<br>${escapeHtml(url)}</p>`;
}

const formatDate = (iso: string) =>
  new Date(iso).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/**
 * What an invitation as co-parent of `kids` gives, in one sentence (docs/decisions/0060-co-parent-invitations.md);
 * "" when it names no kid. Mails and the invitation's page say the same.
 */
export function coParentOfText(inviterName: string, kids: string[] | undefined): string {
  if (!kids?.length) return "";
  const names = listText(kids.map(oneLine));
  return `${oneLine(inviterName)} invites you as co-parent of ${names}: you add their moments, change them, and see every one of them, those shared “Only us” included.`;
}

export function invitationMail(input: {
  to: string;
  inviterName: string;
  note: string | null;
  url: string;
  expiresAt: string;
  /** The kids the invitation makes its answer a co-parent of (names; empty: none). */
  coParentOf?: string[];
  /** What joining shows them: "Family and Everyone" (the access module's audiencesText). */
  youSee: string;
}): OutgoingMail {
  // a name on one line (also one from a row older than the one-line rule) and the note's lines
  // indented: nothing the inviter typed stands at the margin of the text as a line of ours
  const inviterName = oneLine(input.inviterName);
  const subject = `${inviterName} invited you to Sweet Moments`;
  const note = input.note ? `\n${inviterName} wrote:\n  ${indentedLines(input.note, "  ")}\n` : "";
  const coParent = coParentOfText(inviterName, input.coParentOf);
  const sees = `You will see the moments ${inviterName} shares with ${input.youSee}.`;
  const text = `${inviterName} would like to share photos of their kids with you on Sweet Moments, a private family album. ${sees}
${coParent ? `\n${coParent}\n` : ""}${note}
Open this link to join (no password needed). It works until ${formatDate(input.expiresAt)}:
${input.url}

If you were not expecting this, you can ignore this message.`;
  const html = page(
    subject,
    `<h1 style="font-size:1.4em">${escapeHtml(subject)}</h1>
<p>${escapeHtml(input.inviterName)} would like to share photos of their kids with you on Sweet Moments, a private family album. ${escapeHtml(sees)}</p>
${coParent ? `<p>${escapeHtml(coParent)}</p>` : ""}
${input.note ? `<p>${escapeHtml(input.inviterName)} wrote:</p><blockquote>${escapeHtml(input.note)}</blockquote>` : ""}
<p>Join with one tap, no password needed. The link works until ${formatDate(input.expiresAt)}.</p>
${button(input.url, "Join Sweet Moments")}
<p>If you were not expecting this, you can ignore this message.</p>`,
  );
  return { kind: "invitation", to: input.to, subject, text, html };
}

/**
 * An invitation answered with this address, which has an account: who invited, their note, what
 * accepting does, and a sign-in link to the invitation's page, where only "Accept" makes the
 * friendship (docs/decisions/0040-invitation-answers-and-blocks.md). Whoever answered may not be
 * the address's owner, so the message asks for nothing but a choice.
 */
export function invitationAnswerMail(input: {
  to: string;
  inviterName: string;
  note: string | null;
  url: string;
  invitationUrl: string;
  expiresAt: string;
  coParentOf?: string[];
  /** What each would see of the other's moments: "Family and Everyone" (the access module's audiencesText). */
  youSee: string;
  inviterSees: string;
}): OutgoingMail {
  // one line, and the note's lines indented, as in invitationMail
  const who = oneLine(input.inviterName);
  const subject = `${who} invited you to be friends on Sweet Moments`;
  const intro = `${who} invited someone to Sweet Moments, a private family album, and the invitation was answered with this email address, which already has an account.`;
  const coParent = coParentOfText(who, input.coParentOf);
  const accepting = `If you accept, you and ${who} become friends: you see the moments ${who} shares with ${input.youSee}, and ${who} sees the moments you share with ${input.inviterSees}.${coParent ? ` ${coParent}` : ""} Nothing changes unless you accept.`;
  const how = `To answer, sign in with this link; it works once, for 15 minutes. You will see the invitation with "Accept" and "Decline".`;
  const later = `Later, log in and open the invitation (until ${formatDate(input.expiresAt)}):`;
  const ignore = `If you do not know ${who}, or did not answer an invitation, choose "Decline" or ignore this message: nothing changes.`;
  const note = input.note ? `\n${who} wrote:\n  ${indentedLines(input.note, "  ")}\n` : "";
  const text = `${intro}
${note}
${accepting}

${how}
${input.url}

${later}
${input.invitationUrl}

${ignore}`;
  const html = page(
    subject,
    `<h1 style="font-size:1.4em">${escapeHtml(subject)}</h1>
<p>${escapeHtml(intro)}</p>
${input.note ? `<p>${escapeHtml(who)} wrote:</p><blockquote>${escapeHtml(input.note)}</blockquote>` : ""}
<p>${escapeHtml(accepting)}</p>
<p>${escapeHtml(how)}</p>
${button(input.url, "Sign in to answer")}
<p>${escapeHtml(later)}<br>${escapeHtml(input.invitationUrl)}</p>
<p>${escapeHtml(ignore)}</p>`,
  );
  return { kind: "invitation-answer", to: input.to, subject, text, html };
}

/**
 * To the old address after an email change: what changed, and a link that undoes it and signs the
 * account out everywhere (docs/decisions/0039-account-safety.md).
 */
export function emailChangedMail(input: {
  to: string;
  newEmail: string;
  url: string;
  expiresAt: string;
}): OutgoingMail {
  const subject = "Your Sweet Moments email address was changed";
  const intro = `The email address of your Sweet Moments account was changed from ${input.to} to ${input.newEmail}.`;
  const undo = `If you did not do this, someone else may have your account. This link puts your address back, removes the password and signs the account out everywhere; you then choose a new password. It works once, until ${formatDate(input.expiresAt)}:`;
  const text = `${intro}

${undo}
${input.url}

If you made this change, you can ignore this message.`;
  const html = page(
    subject,
    `<h1 style="font-size:1.4em">${escapeHtml(subject)}</h1>
<p>${escapeHtml(intro)}</p>
<p>${escapeHtml(undo)}</p>
${button(input.url, "Undo the change and sign out everywhere")}
<p>If you made this change, you can ignore this message.</p>`,
  );
  return { kind: "email-changed", to: input.to, subject, text, html };
}

export function signInLinkMail(input: { to: string; url: string; reset: boolean; deleting?: boolean }): OutgoingMail {
  const subject = input.reset ? "Reset your Sweet Moments password" : "Your Sweet Moments sign-in link";
  const intro = input.reset
    ? "Use this link to sign in, then choose a new password."
    : input.deleting
      ? "You asked to delete your Sweet Moments account. Use this link to sign in again; then you can delete your account within 10 minutes."
      : "Use this link to sign in to Sweet Moments.";
  const text = `${intro}
The link works once, for 15 minutes:
${input.url}

If you did not ask for this, you can ignore this message: nothing changes.`;
  const html = page(
    subject,
    `<h1 style="font-size:1.4em">${escapeHtml(subject)}</h1>
<p>${escapeHtml(intro)}</p>
<p>The link works once, for 15 minutes.</p>
${button(input.url, input.reset ? "Sign in and reset password" : "Sign in")}
<p>If you did not ask for this, you can ignore this message: nothing changes.</p>`,
  );
  return { kind: input.reset ? "reset" : "sign-in", to: input.to, subject, text, html };
}

/**
 * To someone who just became a co-parent by accepting an invitation (docs/decisions/0060-co-parent-invitations.md):
 * which kids, what it lets them do, where to start. Sent once, when it happens, like the notice of
 * an email change: not a digest, so it has no unsubscribe link.
 */
export function coParentAddedMail(input: {
  to: string;
  inviterName: string;
  kids: string[];
  url: string;
}): OutgoingMail {
  const who = oneLine(input.inviterName);
  const names = listText(input.kids.map(oneLine));
  const subject = `You are now a co-parent of ${names} on Sweet Moments`;
  const what = `${who} made you a co-parent of ${names}. You can add their moments, change them, and see every one of them, those shared “Only us” included.`;
  const leave = `If this is not what you expected, you can stop co-parenting on each kid's Co-parents page.`;
  const text = `${what}

Start here:
${input.url}

${leave}`;
  const html = page(
    subject,
    `<h1 style="font-size:1.4em">${escapeHtml(subject)}</h1>
<p>${escapeHtml(what)}</p>
${button(input.url, "See your kids")}
<p>${escapeHtml(leave)}</p>`,
  );
  return { kind: "co-parent-added", to: input.to, subject, text, html };
}
