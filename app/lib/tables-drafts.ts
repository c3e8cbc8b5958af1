// The rows of draft moments (migration 20261216000000_drafts, docs/decisions/0065-drafts.md), typed
// beside app/lib/tables.ts, and added to its `Tables` here, to keep that file under 400 lines.
import type { AudienceValue } from "./tables";

/** A draft moment, seen by its author alone (docs/decisions/0065-drafts.md). */
export interface DraftRow {
  id: number;
  user_id: number;
  kid_id: number;
  taken_on: string;
  title: string;
  content: string;
  /** null: the kid's default audience when published */
  audience: AudienceValue | null;
  milestone: string | null;
  created_at: string;
  updated_at: string;
}

/** A photo of a draft: an images row of kind "log", owned by the draft's author until published. */
export interface DraftPhotoRow {
  id: number;
  draft_id: number;
  image_id: number;
  position: number;
  alt: string;
  /** the name of the file it came from, as sent */
  name: string;
}

/** A file the author's last "Add photos" for a kid did not take, and why. */
export interface DraftRefusalRow {
  id: number;
  user_id: number;
  kid_id: number;
  name: string;
  reason: string;
  created_at: string;
}

declare module "./tables" {
  interface Tables {
    drafts: DraftRow;
    draft_photos: DraftPhotoRow;
    draft_refusals: DraftRefusalRow;
  }
}
