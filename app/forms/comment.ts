// The comment form (new comment and edit), used by the block in the browser, by the block's page
// action and by the /api comment routes. Text is trimmed, then 1–1000 characters, with its line
// breaks but no other control character (app/lib/one-line.ts).
import { isPlainText } from "~/lib/one-line";

export const COMMENT_MAX = 1000;

export const COMMENT_MESSAGES = {
  required: "Comment is required",
  "too-long": `Comment can not be more than ${COMMENT_MAX} characters`,
  control: "Comment cannot contain control characters.",
} as const;

export type CommentErrorCode = keyof typeof COMMENT_MESSAGES;

/**
 * The first message for `comment`, or null when the text is valid: trimmed, 1 to COMMENT_MAX
 * characters. Plain code, not a zod schema: the like and comment block runs it in the browser on
 * every kid page, and zod is not worth its bytes there (docs/decisions/0035-slow-networks.md).
 */
export function commentError(value: unknown): string | null {
  if (typeof value !== "string") return COMMENT_MESSAGES.required;
  const text = value.trim();
  if (text.length === 0) return COMMENT_MESSAGES.required;
  if (text.length > COMMENT_MAX) return COMMENT_MESSAGES["too-long"];
  return isPlainText(text) ? null : COMMENT_MESSAGES.control;
}

/** Messages travel in URLs (no-JS redirects) as codes, never as free text. */
export function commentErrorCode(message: string): CommentErrorCode {
  const code = (Object.keys(COMMENT_MESSAGES) as CommentErrorCode[]).find((c) => COMMENT_MESSAGES[c] === message);
  return code ?? "required";
}
export function commentErrorMessage(code: string | null): string | null {
  return code && code in COMMENT_MESSAGES ? COMMENT_MESSAGES[code as CommentErrorCode] : null;
}

// ---- the block's URL state (works without JavaScript) ------------------------------------------
// ?showComments=<momentId>            the comment section of that moment starts open
// ?editComment=<commentId>         that comment is shown as an edit form
// ?commentError=<momentId>&commentReason=…   a refused comment's message, beside the textarea
// ?confirm=delete-comment&commentId=<id>   the delete confirmation dialog

export const SOCIAL_PARAMS = ["showComments", "editComment", "commentError", "commentReason", "commentId"] as const;

/** `path` (pathname + search, no hash) without the block's own state, so it can be returned to. */
export function cleanSocialPath(path: string): string {
  const noHash = path.split("#")[0] ?? "";
  const q = noHash.indexOf("?");
  if (q < 0) return noHash;
  const params = new URLSearchParams(noHash.slice(q + 1));
  for (const name of SOCIAL_PARAMS) params.delete(name);
  // the delete confirmation (with `commentId` above; a page may already have dropped `confirm`)
  if (params.get("confirm") === "delete-comment") params.delete("confirm");
  const search = params.toString();
  return noHash.slice(0, q) + (search ? `?${search}` : "");
}

/** `path` with extra search parameters (path already cleaned). */
export function withSearch(path: string, extra: Record<string, string | number>): string {
  const q = path.indexOf("?");
  const params = new URLSearchParams(q < 0 ? "" : path.slice(q + 1));
  for (const [k, v] of Object.entries(extra)) params.set(k, String(v));
  const search = params.toString();
  return (q < 0 ? path : path.slice(0, q)) + (search ? `?${search}` : "");
}
