import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { serializeMoment } from "~/api/serializers-kids.server";
import { parseId } from "~/lib/request.server";
import { DRAFT_MESSAGES } from "~/models/access.server";
import { getMoment } from "~/models/moments.server";
import { publishDraft } from "~/models/drafts/publish.server";

// POST /api/drafts/{id}/publish (docs/api.md "Drafts"): the draft becomes a DailyLog of its day
// (201), its relatives are told as of any new moment. Not ready: 400 (B) with the fields to fill.
const route = apiRoute({
  POST: async ({ params }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, DRAFT_MESSAGES.draftNotFound);
    const published = await publishDraft(user.id, id);
    if (!published.ok) return apiRefusal(published);
    const moment = await getMoment(published.momentId);
    return moment
      ? json(serializeMoment(moment, { parent: true }), { status: 201 })
      : apiError(404, DRAFT_MESSAGES.draftNotFound);
  },
});

export const loader = route.loader;
export const action = route.action;
