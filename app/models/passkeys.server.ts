import crypto from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { insertedId, isUniqueViolation, nowIso, writeTransaction } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import type { ChallengePurpose, PasskeyRow, WebauthnChallengeRow } from "~/lib/tables";
import { siteOrigin } from "~/lib/config.server";
import { hasPassword } from "~/lib/password.server";
import { signForUser } from "~/lib/tokens.server";
import { oneLine } from "~/lib/one-line";
import { whereOwnedBy } from "./access.server";
import { conflict, invalid, notFound, type Result } from "./refusal";
import { getUserById, type User } from "./users.server";
import { deletePasskeySessions } from "./sessions.server";

// Passkeys (WebAuthn, docs/decisions/0055-passkeys.md). The relying party is the configured site
// (siteOrigin(), decision 0038), never a request's Host. Every ceremony's challenge is a row of
// `webauthn_challenges`, taken (deleted) by the one verification that reads it, whatever its
// outcome, and good for CHALLENGE_MS: so any process may answer the second half of a ceremony and
// no challenge answers twice. A registration's challenge is keyed by the session that asked; a
// sign-in's by a random handle the browser keeps in a signed cookie (app/web/passkey.server.ts)
// together with the challenge itself, so one browser may have several sign-ins waiting (the log-in
// page's autofill request and its button's) and whichever answers comes back finds its own.

// The WebAuthn library is loaded on a process's first passkey request, not at start: an idle
// worker does not hold it (about 4 MB each; docs/decisions/0036-lean-processes.md,
// docs/decisions/0057-bench-side-by-side.md).
const webauthn = () => import("@simplewebauthn/server");

export const CHALLENGE_MS = 5 * 60 * 1000;
export const PASSKEY_NAME_MAX = 64;
const RP_NAME = "Sweet Moments";

export const PASSKEY_MESSAGES = {
  notVerified: "That passkey could not be checked. Try again.",
  unknown: "That passkey is not known here. Sign in another way, then add it in Settings.",
  expired: "That took too long. Try again.",
  lastWayIn:
    "This is the last passkey of an account without a password: removing it would leave only emailed sign-in links. Set a password or add another passkey first.",
  nameRequired: "Enter a name for the passkey.",
  nameTooLong: `A passkey's name has at most ${PASSKEY_NAME_MAX} characters.`,
} as const;

type ChallengeRow = WebauthnChallengeRow;
type Purpose = ChallengePurpose;

/** A passkey as its owner sees it (never its key). */
export type Passkey = { id: number; name: string; created_at: string; last_used_at: string | null };

function relyingParty(): { id: string; origin: string } {
  const origin = new URL(siteOrigin());
  return { id: origin.hostname, origin: origin.origin };
}

function challengeKey(purpose: Purpose, handle: string): string {
  return crypto.createHash("sha256").update(`${purpose}:${handle}`).digest("hex");
}

async function storeChallenge(purpose: Purpose, handle: string, challenge: string, userId: number | null) {
  const row: ChallengeRow = {
    id: challengeKey(purpose, handle),
    purpose,
    user_id: userId,
    challenge,
    expires_at: new Date(Date.now() + CHALLENGE_MS).toISOString(),
  };
  const now = nowIso();
  await writeTransaction(async (trx) => {
    // a new registration of the same session replaces its last one; expired ones of anyone go
    await trx("webauthn_challenges").where("id", row.id).orWhere("expires_at", "<=", now).delete();
    await trx("webauthn_challenges").insert(row);
  });
}

/**
 * Takes the challenge of `handle` out of the table (so it answers once, whether the answer then
 * verifies or not) and answers it while it is live and, for registration, of `userId`.
 */
async function takeChallenge(purpose: Purpose, handle: string, userId: number | null): Promise<string | null> {
  const id = challengeKey(purpose, handle);
  const row = await writeTransaction(async (trx) => {
    const found: ChallengeRow | undefined = await trx("webauthn_challenges").where("id", id).first();
    if (!found) return undefined;
    // another process that took it first deleted it: then this one has none
    const deleted = await trx("webauthn_challenges").where("id", id).delete();
    return deleted ? found : undefined;
  });
  if (!row || row.purpose !== purpose || row.user_id !== userId) return null;
  return row.expires_at > nowIso() ? row.challenge : null;
}

/** The WebAuthn user handle of an account: stable, and says nothing about it. */
function userHandle(userId: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(signForUser("webauthn-user", userId), "base64url"));
}

const passkeysOf = query<{ user: number }, PasskeyRow>((p, k) =>
  whereOwnedBy(k("passkeys"), "passkeys.user_id", p("user")).orderBy([
    { column: "passkeys.created_at", order: "asc" },
    { column: "passkeys.id", order: "asc" },
  ]),
);

async function rowsOf(userId: number): Promise<PasskeyRow[]> {
  return passkeysOf.all({ user: userId });
}

/** The user's passkeys, oldest first. */
export async function listPasskeys(userId: number): Promise<Passkey[]> {
  return (await rowsOf(userId)).map(({ id, name, created_at, last_used_at }) => ({
    id,
    name,
    created_at,
    last_used_at,
  }));
}

/**
 * The options of a new passkey for `user` (a discoverable credential, user verification
 * preferred), its challenge kept for the session of `sessionToken`.
 */
export async function registrationOptions(
  user: Pick<User, "id" | "username" | "email" | "first_name" | "last_name">,
  sessionToken: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const rp = relyingParty();
  const existing = await rowsOf(user.id);
  const displayName = [user.first_name, user.last_name].filter(Boolean).join(" ") || user.username;
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: displayName,
    userID: userHandle(user.id),
    attestationType: "none",
    excludeCredentials: existing.map((r) => ({ id: r.credential_id, transports: splitTransports(r.transports) })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
    timeout: CHALLENGE_MS,
  });
  await storeChallenge("register", sessionToken, options.challenge, user.id);
  return options;
}

function splitTransports(text: string): string[] | undefined {
  return text ? text.split(",") : undefined;
}

/** A passkey's name as typed: one line, trimmed; refused when empty or too long. */
export function passkeyName(value: unknown): Result<{ name: string }> {
  const name = typeof value === "string" ? oneLine(value).trim() : "";
  if (!name) return invalid(PASSKEY_MESSAGES.nameRequired, { name: [PASSKEY_MESSAGES.nameRequired] });
  if (name.length > PASSKEY_NAME_MAX)
    return invalid(PASSKEY_MESSAGES.nameTooLong, { name: [PASSKEY_MESSAGES.nameTooLong] });
  return { ok: true, name };
}

/**
 * Verifies the browser's answer to registrationOptions (same session, live challenge, the site's
 * origin and relying party) and keeps the passkey as `name`. Refused: invalid.
 */
export async function registerPasskey(
  userId: number,
  sessionToken: string,
  response: RegistrationResponseJSON,
  name: unknown,
): Promise<Result<{ passkey: Passkey }>> {
  const challenge = await takeChallenge("register", sessionToken, userId);
  const named = passkeyName(name);
  if (!challenge) return invalid(PASSKEY_MESSAGES.expired);
  if (!named.ok) return named;
  const rp = relyingParty();
  let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>["registrationInfo"];
  try {
    const verified = await (await webauthn()).verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
    info = verified.verified ? verified.registrationInfo : undefined;
  } catch {
    info = undefined;
  }
  if (!info) return invalid(PASSKEY_MESSAGES.notVerified);
  const created_at = nowIso();
  const credential = info.credential;
  try {
    const id = await writeTransaction(async (trx) =>
      insertedId(
        await trx("passkeys")
          .insert({
            user_id: userId,
            credential_id: credential.id,
            public_key: Buffer.from(credential.publicKey).toString("base64url"),
            counter: credential.counter,
            transports: (credential.transports ?? []).join(","),
            name: named.name,
            created_at,
            last_used_at: null,
          })
          .returning("id"),
      ),
    );
    return { ok: true, passkey: { id, name: named.name, created_at, last_used_at: null } };
  } catch (error) {
    if (isUniqueViolation(error)) return conflict("That passkey is already saved.");
    throw error;
  }
}

/** The options of a sign-in with any passkey of this site; the challenge is kept for `handle`. */
export async function authenticationOptions(handle: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: relyingParty().id,
    userVerification: "preferred",
    timeout: CHALLENGE_MS,
  });
  await storeChallenge("sign-in", signInHandle(handle, options.challenge), options.challenge, null);
  return options;
}

/** A sign-in challenge's row is the browser's handle and the challenge together. */
function signInHandle(handle: string, challenge: string): string {
  return `${handle}:${challenge}`;
}

/**
 * The challenge an answer says it signed (its client data's `challenge`), or null: only used to
 * find the row; the library then checks the signed client data against the row's challenge.
 */
function answeredChallenge(response: AuthenticationResponseJSON): string | null {
  try {
    const clientData: unknown = JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString("utf8"));
    const challenge = (clientData as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === "string" && challenge.length > 0 && challenge.length <= 128 ? challenge : null;
  } catch {
    return null;
  }
}

const byCredential = query<{ credential: string }, PasskeyRow>((p, k) =>
  k("passkeys").where("passkeys.credential_id", p("credential")).first(),
);

/** The account a passkey's credential id belongs to (for the log-in limits), or null. */
export async function passkeyOwner(credentialId: string): Promise<User | null> {
  const row = await byCredential.first({ credential: credentialId.slice(0, 1400) });
  return row ? getUserById(row.user_id) : null;
}

/**
 * Verifies a sign-in answer to the challenge of `handle`: a known passkey, the site's origin and
 * relying party, a signature by its key and a counter that went up (when the authenticator counts).
 * Answers the account, and notes the passkey's use. Refused: invalid.
 */
export async function verifyPasskeySignIn(
  handle: string,
  response: AuthenticationResponseJSON,
): Promise<Result<{ user: User; passkeyId: number }>> {
  const answered = answeredChallenge(response);
  const challenge = answered ? await takeChallenge("sign-in", signInHandle(handle, answered), null) : null;
  if (!challenge) return invalid(PASSKEY_MESSAGES.expired);
  const row = await byCredential.first({ credential: String(response.id).slice(0, 1400) });
  if (!row) return invalid(PASSKEY_MESSAGES.unknown);
  const rp = relyingParty();
  let newCounter: number | null = null;
  try {
    const verified = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: row.credential_id,
        publicKey: new Uint8Array(Buffer.from(row.public_key, "base64url")),
        counter: row.counter,
        transports: splitTransports(row.transports),
      },
      requireUserVerification: false,
    });
    if (verified.verified) newCounter = verified.authenticationInfo.newCounter;
  } catch {
    newCounter = null;
  }
  if (newCounter === null) return invalid(PASSKEY_MESSAGES.notVerified);
  const counter = newCounter;
  // the counter only moves forward: a second process verifying a copy of the same answer finds
  // no row to update and refuses it
  const updated = await writeTransaction((trx) =>
    trx("passkeys")
      .where("id", row.id)
      .andWhere((q) => q.where("counter", "<", counter).orWhere("counter", 0))
      .update({ counter, last_used_at: nowIso() }),
  );
  if (!updated) return invalid(PASSKEY_MESSAGES.notVerified);
  const user = await getUserById(row.user_id);
  return user ? { ok: true, user, passkeyId: row.id } : invalid(PASSKEY_MESSAGES.unknown);
}

/** Renames one of the user's passkeys. Refused: not-found (not theirs), invalid (the name). */
export async function renamePasskey(userId: number, passkeyId: number, name: unknown): Promise<Result> {
  const named = passkeyName(name);
  if (!named.ok) return named;
  const updated = await writeTransaction((trx) =>
    whereOwnedBy(trx("passkeys"), "user_id", userId).andWhere("id", passkeyId).update({ name: named.name }),
  );
  return updated ? { ok: true } : notFound("Passkey not found");
}

/**
 * Removes one of the user's passkeys and ends the sessions it started, but the one of `keepToken`
 * (the session removing it). Refused: not-found (not theirs), conflict (the last passkey of an
 * account without a password: the account would be left with emailed links alone).
 */
export async function removePasskey(userId: number, passkeyId: number, keepToken: string | null): Promise<Result> {
  return writeTransaction(async (trx) => {
    const rows: Pick<PasskeyRow, "id">[] = await whereOwnedBy(trx("passkeys"), "user_id", userId).select("id");
    if (!rows.some((r) => r.id === passkeyId)) return notFound("Passkey not found");
    if (rows.length === 1) {
      const owner: { password_hash: string } | undefined = await trx("users")
        .where("id", userId)
        .first("password_hash");
      if (!owner || !hasPassword(owner.password_hash)) return conflict(PASSKEY_MESSAGES.lastWayIn);
    }
    await whereOwnedBy(trx("passkeys"), "user_id", userId).andWhere("id", passkeyId).delete();
    await deletePasskeySessions(trx, userId, passkeyId, keepToken);
    return { ok: true };
  });
}
