import { data } from "react-router";
import { parseId } from "~/api/responses.server";

/** An id from a page URL (positive integer), or the plain not-found page. */
export function pageId(value: string | undefined): number {
  const id = parseId(value);
  if (!id) throw data("Not found", { status: 404 });
  return id;
}
