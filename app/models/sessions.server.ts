import crypto from "node:crypto";
import { isDatabaseBusy, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { config } from "~/lib/config.server";
import { describeUserAgent } from "~/lib/user-agent";
import { whereOwnedBy } from "./access.server";
import { notFound, type Result } from "./refusal";
import type { SessionRow } from "~/lib/tables";
import { userColumns, userFromRow, usersQuery, type User, type UserColumns } from "./users.server";

// Sessions are rows. The cookie holds a random 256-bit token; the table holds only its sha256,
// so neither a stolen database nor a guessed id opens a session. Deleting the row ends it.
// Pages and the API name a session by its random `handle`, never by the row's id (the hash).

function hashToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

/** "Last seen" is written at most this often per session (a request costs no write otherwise). */
export const LAST_SEEN_EVERY_MS = 5 * 60 * 1000;
const USER_AGENT_MAX = 255;

/**
 * A new session. `link`: it was started by a sign-in link; `madeBy` the parent whose link for a
 * relative it was (such sessions end when the relative secures the account: deleteLinkSessions),
 * null for a link from the user's own email (it stands in for the password for a few minutes:
 * linkSignInAt). `passkeyId`: the passkey that started it (such sessions end when it is removed:
 * deletePasskeySessions).
 */
export async function createSession(
  userId: number,
  userAgent?: string | null,
  link?: { madeBy: number | null } | null,
  passkeyId?: number | null,
): Promise<{ token: string; expires: Date }> {
  const token = crypto.randomBytes(32).toString("base64url");
  const expires = new Date(Date.now() + config().sessionDays * 24 * 60 * 60 * 1000);
  const now = nowIso();
  await writeTransaction((trx) =>
    trx("sessions").insert({
      id: hashToken(token),
      user_id: userId,
      created_at: now,
      expires_at: expires.toISOString(),
      last_seen_at: now,
      user_agent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null,
      handle: crypto.randomBytes(12).toString("base64url"),
      link_by: link?.madeBy ?? null,
      signed_in_by: link ? "link" : null,
      passkey_id: passkeyId ?? null,
    }),
  );
  return { token, expires };
}

// every request asks this
const sessionUser = query<
  { hash: string; now: string },
  UserColumns & { session_last_seen_at: SessionRow["last_seen_at"] }
>((p, k) =>
  usersQuery(k)
    .join("sessions", "sessions.user_id", "users.id")
    .where("sessions.id", p("hash"))
    .andWhere("sessions.expires_at", ">", p("now"))
    .first([...userColumns, "sessions.last_seen_at as session_last_seen_at"]),
);

/** Last seen is a hint: a busy database skips it (the next request, minutes later, tries again). */
async function touchSession(hash: string, now: string): Promise<void> {
  try {
    await writeTransaction((trx) => trx("sessions").where("id", hash).update({ last_seen_at: now }));
  } catch (error) {
    if (!isDatabaseBusy(error)) throw error;
  }
}

export async function getSessionUser(token: string): Promise<User | null> {
  if (!token || token.length > 100) return null;
  const hash = hashToken(token);
  const now = nowIso();
  const row = await sessionUser.first({ hash, now });
  if (!row) return null;
  const seen = row.session_last_seen_at ? Date.parse(row.session_last_seen_at) : NaN;
  if (!(seen > Date.now() - LAST_SEEN_EVERY_MS)) await touchSession(hash, now);
  return userFromRow(row);
}

export async function deleteSession(token: string): Promise<void> {
  await writeTransaction((trx) => trx("sessions").where("id", hashToken(token)).delete());
}

export async function deleteExpiredSessions(): Promise<number> {
  return writeTransaction((trx) => trx("sessions").where("expires_at", "<=", nowIso()).delete());
}

/** One of a user's sessions as the settings page and the API show it. */
export type SessionInfo = {
  id: string;
  device: string;
  created_at: string;
  last_seen_at: string;
  current: boolean;
};

// every session has a handle: sign-in gives one, and the migration that added it gave the older ones
type SessionListed = Pick<SessionRow, "id" | "user_agent" | "created_at" | "last_seen_at"> & { handle: string };

const sessionsOf = query<{ user: number; now: string }, SessionListed>((p, k) =>
  whereOwnedBy(k("sessions"), "sessions.user_id", p("user"))
    .andWhere("sessions.expires_at", ">", p("now"))
    .orderBy([
      { column: "sessions.last_seen_at", order: "desc" },
      { column: "sessions.created_at", order: "desc" },
    ])
    .select("sessions.id", "sessions.handle", "sessions.user_agent", "sessions.created_at", "sessions.last_seen_at"),
);

/** The user's live sessions, most recently seen first; `currentToken`'s is marked `current`. */
export async function listSessions(userId: number, currentToken: string | null): Promise<SessionInfo[]> {
  const current = currentToken ? hashToken(currentToken) : null;
  const rows = await sessionsOf.all({ user: userId, now: nowIso() });
  return rows.map((r) => ({
    id: r.handle,
    device: describeUserAgent(r.user_agent),
    created_at: r.created_at,
    last_seen_at: r.last_seen_at ?? r.created_at,
    current: r.id === current,
  }));
}

/** Ends one of the user's own sessions, named by its handle. Refused: not-found (not theirs, or gone). */
export async function endSessionByHandle(userId: number, handle: string): Promise<Result> {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(handle)) return notFound("Session not found");
  const deleted = await writeTransaction((trx) =>
    whereOwnedBy(trx("sessions"), "user_id", userId).andWhere("handle", handle).delete(),
  );
  return deleted ? { ok: true } : notFound("Session not found");
}

/** Ends every session of the user except the one of `currentToken`. Answers how many ended. */
export async function endOtherSessions(userId: number, currentToken: string | null): Promise<number> {
  return writeTransaction((trx) => deleteOtherSessions(trx, userId, currentToken));
}

/**
 * On `conn`: deletes the user's sessions that a parent's sign-in link started, but the one of
 * `keepToken` (the relative turning links off from such a session stays signed in).
 */
export async function deleteLinkSessions(conn: Db, userId: number, keepToken: string | null = null): Promise<number> {
  const keep = keepToken ? hashToken(keepToken) : "";
  return whereOwnedBy(conn("sessions"), "user_id", userId).whereNotNull("link_by").andWhereNot("id", keep).delete();
}

/**
 * On `conn`: deletes the user's sessions that the passkey `passkeyId` started, but the one of
 * `keepToken` (removing a passkey from the session it started keeps that session signed in).
 */
export async function deletePasskeySessions(
  conn: Db,
  userId: number,
  passkeyId: number,
  keepToken: string | null,
): Promise<number> {
  const keep = keepToken ? hashToken(keepToken) : "";
  return whereOwnedBy(conn("sessions"), "user_id", userId)
    .andWhere("passkey_id", passkeyId)
    .andWhereNot("id", keep)
    .delete();
}

/**
 * On `conn` (a caller's write transaction): deletes every session of the user but the one of
 * `keepToken` (none: all of them). A new password, an email change undone: every other device is out.
 */
export async function deleteOtherSessions(conn: Db, userId: number, keepToken: string | null): Promise<number> {
  const keep = keepToken ? hashToken(keepToken) : "";
  return whereOwnedBy(conn("sessions"), "user_id", userId).andWhereNot("id", keep).delete();
}

const sessionStart = query<{ hash: string }, Pick<SessionRow, "created_at" | "signed_in_by" | "link_by">>((p, k) =>
  k("sessions")
    .where("sessions.id", p("hash"))
    .first("sessions.created_at", "sessions.signed_in_by", "sessions.link_by"),
);

/** When the session of this token began (a fresh sign-in confirms deleting an account without a password). */
export async function sessionStartedAt(token: string | null): Promise<string | null> {
  if (!token || token.length > 100) return null;
  const row = await sessionStart.first({ hash: hashToken(token) });
  return row?.created_at ?? null;
}

/**
 * When the session of this token was started by a sign-in link from the user's own email, or null
 * (started another way, or by a parent's link: docs/decisions/0061-real-names-and-long-passwords.md).
 * Fresh (isFreshSignIn), it stands in for the current password.
 */
export async function linkSignInAt(token: string | null): Promise<string | null> {
  if (!token || token.length > 100) return null;
  const row = await sessionStart.first({ hash: hashToken(token) });
  return row?.signed_in_by === "link" && row.link_by === null ? row.created_at : null;
}
