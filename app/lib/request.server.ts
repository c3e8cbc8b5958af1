import { data } from "react-router";

/** An id from a page URL (positive integer), or the plain not-found page. */
export function pageId(value: string | undefined): number {
  const id = parseId(value);
  if (!id) throw data("Not found", { status: 404 });
  return id;
}

/** Ids in paths are positive integers; anything else is "not found". */
export function parseId(value: string | undefined): number | null {
  if (!value || !/^[1-9][0-9]{0,15}$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}
