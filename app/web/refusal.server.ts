import { data } from "react-router";
import type { Refusal } from "~/models/refusal";
import { refusalMessage, refusalStatus } from "~/api/refusal.server";

// A domain refusal (app/models/refusal.ts) as a page answers it, thrown by loaders and actions:
//  - not found, and forbidden-and-hidden (the viewer may not see the thing at all): the plain
//    not-found page, identical to "does not exist";
//  - forbidden (the viewer may see it but not change it: a friend already knows it exists, so the
//    403 reveals nothing): 403 with the page's reason, or the refusal's message;
//  - invalid, conflict: 400 with the refusal's message. Forms show field errors themselves.

/** The kid and moment forms' reason for a friend who may see but not change. */
export const OWNER_ONLY = "Only the owner can change this kid and its moments.";

export function pageRefusal(refusal: Refusal, opts: { forbidden?: string } = {}) {
  if (refusal.kind === "not-found" || (refusal.kind === "forbidden" && refusal.hidden))
    return data("Not found", { status: 404 });
  if (refusal.kind === "forbidden") return data(opts.forbidden ?? refusalMessage(refusal), { status: 403 });
  return data(refusalMessage(refusal), { status: refusalStatus(refusal) });
}

/** The status of a refusal answered as data (not thrown), e.g. to a form's script. */
export { refusalStatus };
