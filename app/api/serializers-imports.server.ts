import { href } from "react-router";
import type { ImportDone } from "~/imports/imports.server";

// The answer of an import (docs/api.md "Imports", docs/decisions/0066-imports.md).
export function serializeImportDone(done: ImportDone) {
  const s = done.summary;
  return {
    import: {
      id: done.importId,
      kind: s.kind,
      kids: s.kids,
      moments: s.moments,
      photos: s.photos,
      clips: s.clips,
      already_there: s.alreadyThere,
      skipped: s.skipped,
      others_likes_not_imported: s.othersLikes,
      others_comments_not_imported: s.othersComments,
      ...(s.kidId ? { kid_id: s.kidId, review_url: href("/kids/:kidId/drafts", { kidId: String(s.kidId) }) } : {}),
    },
  };
}
