// Where a form may send the browser afterwards (`redirectTo`, `returnTo`): checked the same way on
// the server (the redirect) and in the browser (the hidden field, the sign-up link). Pure.

/** A relative path inside this site, or null: never an open redirect. */
export function safeRedirectPath(to: FormDataEntryValue | string | null | undefined): string | null {
  if (typeof to !== "string" || !to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\")) return null;
  if (/[\r\n\t]/.test(to)) return null;
  return to;
}
