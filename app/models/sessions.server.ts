import crypto from "node:crypto";
import { nowIso, writeTransaction } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { config } from "~/lib/config.server";
import { userColumns, userFromRow, usersQuery, type User } from "./users.server";

// Sessions are rows. The cookie holds a random 256-bit token; the table holds only its sha256,
// so neither a stolen database nor a guessed id opens a session. Deleting the row ends it.

function hashToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

export async function createSession(userId: number): Promise<{ token: string; expires: Date }> {
  const token = crypto.randomBytes(32).toString("base64url");
  const expires = new Date(Date.now() + config().sessionDays * 24 * 60 * 60 * 1000);
  await writeTransaction((trx) =>
    trx("sessions").insert({
    id: hashToken(token),
    user_id: userId,
    created_at: nowIso(),
      expires_at: expires.toISOString(),
    }),
  );
  return { token, expires };
}

// every request asks this
const sessionUser = query<{ hash: string; now: string }>((p, k) =>
  usersQuery(k)
    .join("sessions", "sessions.user_id", "users.id")
    .where("sessions.id", p("hash"))
    .andWhere("sessions.expires_at", ">", p("now"))
    .first(userColumns),
);

export async function getSessionUser(token: string): Promise<User | null> {
  if (!token || token.length > 100) return null;
  const row = await sessionUser.first({ hash: hashToken(token), now: nowIso() });
  return row ? userFromRow(row) : null;
}

export async function deleteSession(token: string): Promise<void> {
  await writeTransaction((trx) => trx("sessions").where("id", hashToken(token)).delete());
}

export async function deleteExpiredSessions(): Promise<number> {
  return writeTransaction((trx) => trx("sessions").where("expires_at", "<=", nowIso()).delete());
}
