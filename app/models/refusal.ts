// THE failure type of the domain (docs/decisions/0012-refusal-and-access-module.md).
//
// Every function of app/models and app/images that can say "no" answers `{ ok: true, … }` or a
// Refusal (`{ ok: false, kind, … }`); none throws for a refusal, none knows of HTTP. The adapters
// turn a refusal into an answer: app/api/refusal.server.ts (the /api envelopes and statuses) and
// app/web/refusal.server.ts (pages).

export type FieldErrors = Record<string, string[]>;

export type RefusalKind =
  /** No such thing (or not any more). */
  | "not-found"
  /** Not allowed. */
  | "forbidden"
  /** What was sent is not acceptable. */
  | "invalid"
  /** Acceptable on its own, but not with what is already there (a duplicate, a state that moved on). */
  | "conflict"
  /** Asked too often: a rate limit (429). */
  | "too-many";

export type Refusal = {
  readonly ok: false;
  readonly kind: RefusalKind;
  /** For people, in the API's words (docs/api.md; the API answers it as is). */
  readonly message?: string;
  /**
   * forbidden only: the asker may not even see the thing, so an answer must not tell it apart
   * from "not found" where it can (pages do; the API answers 403 as docs/api.md says).
   */
  readonly hidden?: true;
  /** invalid and conflict: messages by field (form fields, the API's envelope (B)). */
  readonly fieldErrors?: FieldErrors;
  /** too-many only, when the limit knows it: the seconds until a new try can succeed (Retry-After). */
  readonly retryAfterSeconds?: number;
};

/** What a domain function answers: its success value (`ok: true`) or a refusal. */
export type Result<T extends object = object> = ({ ok: true } & T) | Refusal;

/** A refusal with only the parts given (no `undefined` keys: refusals compare and print cleanly). */
function refusal(
  kind: RefusalKind,
  message?: string,
  extra: { hidden?: boolean; fieldErrors?: FieldErrors } = {},
): Refusal {
  return {
    ok: false,
    kind,
    ...(message === undefined ? {} : { message }),
    ...(extra.hidden ? { hidden: true as const } : {}),
    ...(extra.fieldErrors ? { fieldErrors: extra.fieldErrors } : {}),
  };
}

export function notFound(message?: string): Refusal {
  return refusal("not-found", message);
}

export function forbidden(message?: string, opts: { hidden?: boolean } = {}): Refusal {
  return refusal("forbidden", message, opts);
}

/** Invalid input: a message for the whole request, field messages, or both. */
export function invalid(message?: string, fieldErrors?: FieldErrors): Refusal {
  return refusal("invalid", message, { fieldErrors });
}

/** Invalid input in one field: `message` for it (and as the refusal's message). */
export function invalidField(field: string, message: string): Refusal {
  return invalid(message, { [field]: [message] });
}

export function conflict(message?: string, fieldErrors?: FieldErrors): Refusal {
  return refusal("conflict", message, { fieldErrors });
}

/** Over a rate limit (app/lib/limits.server.ts). */
export function tooMany(message: string, waitMs?: number): Refusal {
  const tooOften = refusal("too-many", message);
  return waitMs && waitMs > 0 ? { ...tooOften, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) } : tooOften;
}

/**
 * The same refusal in the caller's words: e.g. the access module's "Daily log not found" /
 * "You are not authorized" become the likes' "You are not allowed to like this daily log".
 */
export function reword(refusal: Refusal, messages: Partial<Record<RefusalKind, string>>): Refusal {
  const message = messages[refusal.kind];
  return message === undefined ? refusal : { ...refusal, message };
}
