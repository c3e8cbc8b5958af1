import { apiRoute } from "~/api/route.server";
import { json } from "~/api/responses.server";
import { sessionToken } from "~/web/auth.server";
import { linksMadeForMe, turnOffRelativeLinks, type LinksMadeForMe } from "~/models/sign-in-links.server";

// GET /api/users/current/sign-in-links: the sign-in links a parent made for the caller (who, when,
// used or not) and whether one still may; DELETE turns that off for good
// (docs/decisions/0039-account-safety.md).
const serialize = (made: LinksMadeForMe) => ({
  open: made.open,
  links: made.links.map((l) => ({ made_by: l.by, created_at: l.createdAt, used_at: l.usedAt })),
});

const route = apiRoute({
  GET: async (_args, user) => json(serialize(await linksMadeForMe(user.id))),
  DELETE: async ({ request }, user) =>
    json(serialize(await turnOffRelativeLinks(user.id, await sessionToken(request)))),
});

export const loader = route.loader;
export const action = route.action;
