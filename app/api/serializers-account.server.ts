import type { Account } from "~/models/account.server";
import type { SessionInfo } from "~/models/sessions.server";
import type { Passkey } from "~/models/passkeys.server";
import { serializeUser } from "./serializers.server";

// The caller's own account and sessions as GET /api/users/current… answer them (docs/api.md, Users).

export function serializeAccount(account: Account) {
  return { ...serializeUser(account, true), has_password: account.has_password, created_at: account.created_at };
}

export function serializeSession(session: SessionInfo) {
  return {
    id: session.id,
    device: session.device,
    created_at: session.created_at,
    last_seen_at: session.last_seen_at,
    current: session.current,
  };
}

/** One of the caller's passkeys: its name and dates, never its key. */
export function serializePasskey(passkey: Passkey) {
  return { id: passkey.id, name: passkey.name, created_at: passkey.created_at, last_used_at: passkey.last_used_at };
}
