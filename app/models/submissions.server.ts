import crypto from "node:crypto";
import type { SubmissionRow } from "~/lib/tables";
import type { Knex } from "knex";
import { isUniqueViolation, nowIso, writeTransaction, type Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { parseSubmissionToken } from "~/forms/submission";

// One-time submissions (docs/decisions/0016-one-time-submissions.md). A creating form carries a
// random token (an /api create may send one as `Idempotency-Key`); the model that creates runs
//
//   const once = await submissionOnce(userId, "kid", token, () => [input, digest], getKid);
//   if (once.first) … answer what the first submission created (it is still there);
//   … create inside once.create(…) (or call once.claim(trx, id) in your own transaction);
//   catch (error) { const first = await once.winner(error); if (first) … the same answer }
//
// The claim is a row of `submissions` written in the same transaction as what was created, so it
// exists exactly when the creation committed; the unique (user_id, action, token) key decides
// between two concurrent submissions: the second one's transaction fails and it answers the
// first's result. A token seen with other content (a fingerprint of what was sent) is a new
// submission: it is created without a claim, never swallowed; so is a repeat whose first result is
// gone. Nothing here knows of HTTP.

export type SubmissionAction =
  | "kid"
  | "moment"
  | "friend-request"
  | "comment"
  | "signup"
  | "invitation"
  | "co-parent"
  | "join"
  | "accept";

/** The user of a sign-up: nobody is signed in yet. */
export const SIGNUP_USER = 0;

/** How long a claim is kept: a repeat later than this is a new submission. */
export const SUBMISSION_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** A fresh token for a form (the root loader hands one to every page). */
export function newSubmissionToken(): string {
  return crypto.randomUUID();
}

export type Once<T> = {
  /**
   * The token when this submission will be claimed (a first submission of it), else null (no
   * token, other content, a first result that is gone, or a repeat): what a model may derive
   * something repeatable from (an invitation's link, app/models/invitations.server.ts).
   */
  readonly token: string | null;
  /** What the first submission of this token created, when this is a repeat of it (and it is still there). */
  readonly first: T | null;
  /** Records the submission inside the transaction that created `resultId` (no-op without a token). */
  claim(trx: Knex.Transaction, resultId: number): Promise<void>;
  /** `write` (which answers the new row's id) and the claim in one write transaction (writeTransaction); without a token, `write` alone in one. */
  create(write: (conn: Db) => Promise<number>): Promise<number>;
  /**
   * After the create failed (a unique violation, or a refusal such as "already exists"): what the
   * first submission of this token created meanwhile, or null (then the failure stands).
   */
  winner(error?: unknown): Promise<T | null>;
};

/** No token, other content, or a first result that is gone: everything runs as it always did. */
function none<T>(): Once<T> {
  return {
    token: null,
    first: null,
    claim: async () => {},
    create: (write) => writeTransaction(write),
    winner: async () => null,
  };
}

/** The first submission of a token lost a race to another of the same content: roll back, answer that one. */
class Repeated extends Error {
  constructor(readonly resultId: number) {
    super("submission already done");
  }
}

type Key = { userId: number; action: string; token: string };

const claimed = query<Key, Pick<SubmissionRow, "fingerprint" | "result_id">>((p, k) =>
  k("submissions")
    .where("user_id", p("userId"))
    .andWhere("action", p("action"))
    .andWhere("token", p("token"))
    .first("fingerprint", "result_id"),
);

/** sha256 (hex) of what was submitted, as JSON. */
export function fingerprintOf(content: unknown): string {
  return crypto
    .createHash("sha256")
    .update(JSON.stringify(content ?? null))
    .digest("hex");
}

/**
 * The submission of `token` by `userId` for `action`. `content` (called only when there is a
 * token) is what was submitted: the same token with other content is not a repeat. `find` turns a
 * result id into the model's answer (null when it is gone, or, for a sign-up, not the same
 * person's). An absent or malformed token gives a submission that runs as if there were no tokens.
 */
export async function submissionOnce<T>(
  userId: number,
  action: SubmissionAction,
  tokenInput: unknown,
  content: () => unknown,
  find: (resultId: number) => Promise<T | null>,
): Promise<Once<T>> {
  const token = parseSubmissionToken(tokenInput);
  if (!token) return none();
  const fingerprint = fingerprintOf(await content());
  const key: Key = { userId, action, token };
  /** The committed claim of this token: its result, "other" (other content) or null (none). */
  const earlier = async (conn?: Db): Promise<number | "other" | null> => {
    const row = await claimed.first(key, { conn });
    if (!row) return null;
    return row.fingerprint === fingerprint ? row.result_id : "other";
  };
  const before = await earlier();
  if (before === "other") return none();
  if (before !== null) {
    const first = await find(before);
    return first === null ? none() : { ...none<T>(), first };
  }

  const claim = async (trx: Knex.Transaction, resultId: number) => {
    // Written last in the creating transaction. On a unique clash the row already there says who
    // won: another submission of the same content (roll back, answer it), or other content (keep
    // this creation, unclaimed). PostgreSQL waits here for a concurrent claim to commit or roll back.
    await trx("submissions")
      .insert({ user_id: userId, action, token, fingerprint, result_id: resultId, created_at: nowIso() })
      .onConflict(["user_id", "action", "token"])
      .ignore();
    const stored = await earlier(trx);
    if (typeof stored === "number" && stored !== resultId) throw new Repeated(stored);
  };
  return {
    token,
    first: null,
    claim,
    create: (write) =>
      writeTransaction(async (trx) => {
        const id = await write(trx);
        await claim(trx, id);
        return id;
      }),
    async winner(error) {
      let id: number | null = null;
      if (error instanceof Repeated) id = error.resultId;
      else if (error === undefined || isUniqueViolation(error)) {
        const now = await earlier();
        id = typeof now === "number" ? now : null;
      }
      return id === null ? null : find(id);
    },
  };
}

/** Removes claims older than `olderThanMs` (the maintenance timer calls it). Answers how many. */
export async function purgeSubmissions(olderThanMs = SUBMISSION_MAX_AGE_MS): Promise<number> {
  const cutoff = new Date(Date.now() - olderThanMs).toISOString();
  return writeTransaction((trx) => trx("submissions").where("created_at", "<", cutoff).delete());
}

/**
 * Removes, on `conn` (the account deletion's transaction), every submission of `userId` and the
 * sign-up submission that created the account: the table has no foreign key to users (a sign-up is
 * user 0), so the cascade does not reach it.
 */
export async function deleteSubmissionsOf(conn: Db, userId: number): Promise<void> {
  await conn("submissions")
    .where("user_id", userId)
    .orWhere((w) => w.where("user_id", SIGNUP_USER).andWhere("action", "signup").andWhere("result_id", userId))
    .delete();
}
