import { apiRoute } from "~/api/route.server";
import { apiError, json } from "~/api/responses.server";
import { apiRefusal } from "~/api/refusal.server";
import { readFields } from "~/api/read-body.server";
import { serializeDraft } from "~/api/serializers-drafts.server";
import { parseId } from "~/lib/request.server";
import { parseDraftFields } from "~/forms/draft";
import { DRAFT_MESSAGES } from "~/models/access.server";
import { discardDraft, updateDraft } from "~/models/drafts/edit.server";
import { getDraft } from "~/models/drafts/read.server";

// GET, PUT, DELETE /api/drafts/{id} (docs/api.md "Drafts"): a draft moment, its author's alone
// (anyone else: 404, as for an id never used). PUT takes the draft form's fields (JSON,
// urlencoded or multipart): title, content, taken_on, milestone (+ milestone_label), audience and
// `photo_<id>_alt` for its photos.
const route = apiRoute({
  GET: async ({ params }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, DRAFT_MESSAGES.draftNotFound);
    const found = await getDraft(user.id, id);
    return found.ok ? json(serializeDraft(found.draft)) : apiRefusal(found);
  },

  PUT: async ({ params, request }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, DRAFT_MESSAGES.draftNotFound);
    const found = await getDraft(user.id, id);
    if (!found.ok) return apiRefusal(found);
    const parsed = parseDraftFields(await readFields(request));
    if (!parsed.ok) return apiRefusal(parsed);
    const saved = await updateDraft(user.id, id, parsed.value);
    return saved.ok ? json(serializeDraft(saved.draft)) : apiRefusal(saved);
  },

  DELETE: async ({ params }, user) => {
    const id = parseId(params.id);
    if (!id) return apiError(404, DRAFT_MESSAGES.draftNotFound);
    const gone = await discardDraft(user.id, id);
    return gone.ok ? json({ message: "The draft is discarded" }) : apiRefusal(gone);
  },
});

export const loader = route.loader;
export const action = route.action;
