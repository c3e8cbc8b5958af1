// Draft moments as the API returns them (docs/api.md "Drafts", docs/decisions/0065-drafts.md).
import { photoUrl } from "~/images/photo";
import type { Draft } from "~/models/drafts/read.server";
import type { RefusedFile } from "~/models/drafts/refusals.server";

/**
 * Draft: `{id, kid_id, taken_on, title, content, audience, milestone, updated_at, expires_at,
 * photos}`; `audience` null means the kid's default; each photo `{id, url, width, height, alt, name}`.
 */
export function serializeDraft(draft: Draft) {
  return {
    id: draft.id,
    kid_id: draft.kidId,
    taken_on: draft.takenOn,
    title: draft.title,
    content: draft.content,
    audience: draft.audience,
    milestone: draft.milestone,
    updated_at: draft.updatedAt,
    expires_at: draft.expiresAt,
    photos: draft.photos.map((p) => ({
      id: p.id,
      url: photoUrl(p),
      width: p.width,
      height: p.height,
      alt: p.alt,
      name: p.name,
    })),
  };
}

/** The answer of an import: the drafts that got photos and the files refused with why. */
export function serializeImport(drafts: Draft[], refused: RefusedFile[]) {
  return { drafts: drafts.map(serializeDraft), refused: refused.map((r) => ({ name: r.name, reason: r.reason })) };
}
