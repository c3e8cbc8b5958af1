// Kids and daily logs as the API returns them (docs/api.md, Entities as returned).
import { type Clip, clipUrl } from "~/video/clip";
import { imageUrl } from "./serializers.server";
import { originalUrl, photoUrl } from "~/images/photo";
import type { Kid } from "~/models/kids.server";
import type { CoParent } from "~/models/co-parents.server";
import type { Moment } from "~/models/moments.server";
import { ACCESS_MESSAGES } from "~/models/access.server";

/**
 * Kid: `{id, user_id, name, birth_date, relationship, kid_image_url, co_parents}`; `user_id` stays
 * the owner; `co_parents` (accepted, `{id, username}`) from the caller's `coParentsOf` read.
 */
export function serializeKid(kid: Kid, coParents: Map<number, CoParent[]> = new Map()) {
  return {
    id: kid.id,
    user_id: kid.user_id,
    name: kid.name,
    birth_date: kid.birth_date,
    relationship: kid.relationship,
    kid_image_url: imageUrl(kid.photo),
    co_parents: (coParents.get(kid.id) ?? []).map((c) => ({ id: c.id, username: c.username })),
  };
}

/**
 * DailyLog: `{id, kid_id, title, content, image_url, created_at, taken_on, milestone, posted_by}`,
 * plus `audience` for the kid's owner and co-parents (`parent`) only, then `photos` (every photo in
 * order, `{url, width, height, alt, original_url}`; `image_url` is the first's; `original_url` the
 * full-size copy's, null when there is none: docs/decisions/0063-full-size-originals.md) (docs/api.md).
 */
export function serializeMoment(moment: Moment, { parent = false }: { parent?: boolean } = {}) {
  return {
    id: moment.id,
    kid_id: moment.kid_id,
    title: moment.title,
    content: moment.content,
    image_url: imageUrl(moment.photo),
    created_at: moment.created_at,
    taken_on: moment.taken_on,
    milestone: moment.milestone,
    ...momentAudience(moment, parent),
    photos: moment.photos.map((p) => ({
      url: photoUrl(p),
      width: p.width,
      height: p.height,
      alt: p.alt,
      original_url: originalUrl(p),
    })),
    videos: serializeClips(moment.clips, parent),
  };
}

/**
 * A DailyLog's `videos` (docs/api.md, docs/decisions/0064-video-clips.md): the URLs are relative, as
 * the photos' are; a clip being prepared has no URLs yet; a failed clip is listed to parents only.
 */
function serializeClips(clips: Clip[], parent: boolean) {
  return clips
    .filter((c) => c.status !== "failed" || parent)
    .map((c) => {
      const ready = c.status === "ready";
      return {
        id: c.id,
        status: c.status,
        description: c.description,
        url: ready ? clipUrl(c, "large") : null,
        small_url: ready ? clipUrl(c, "small") : null,
        poster: c.poster ? photoUrl(c.poster) : null,
        width: c.width,
        height: c.height,
        duration: c.durationMs === null ? null : c.durationMs / 1000,
        captions_url: ready ? clipUrl(c, "captions") : null,
        has_captions: c.hasCaptions,
        ...(c.status === "failed" ? { failure: c.failure } : {}),
      };
    });
}

/** The DailyLog's `posted_by`, and its `audience` for parents only. */
function momentAudience(moment: Moment, parent: boolean) {
  return parent ? { posted_by: moment.posted_by, audience: moment.audience } : { posted_by: moment.posted_by };
}

/** For an id in the URL that cannot be one (the models' own words for "no such row"). */
export const KID_NOT_FOUND = ACCESS_MESSAGES.kidNotFound;
export const MOMENT_NOT_FOUND = ACCESS_MESSAGES.momentNotFound;
