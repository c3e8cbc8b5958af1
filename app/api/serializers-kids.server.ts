// Kids and daily logs as the API returns them (docs/api.md, Entities as returned).
import { imageUrl } from "./serializers.server";
import type { Kid } from "~/models/kids.server";
import type { Moment } from "~/models/moments.server";
import { ACCESS_MESSAGES } from "~/models/access.server";

/** Kid: `{id, user_id, name, birth_date, relationship, kid_image_url}`. */
export function serializeKid(kid: Kid) {
  return {
    id: kid.id,
    user_id: kid.user_id,
    name: kid.name,
    birth_date: kid.birth_date,
    relationship: kid.relationship,
    kid_image_url: imageUrl(kid.photo),
  };
}

/** DailyLog: `{id, kid_id, title, content, image_url, created_at, taken_on, milestone}`. */
export function serializeDailyLog(moment: Moment) {
  return {
    id: moment.id,
    kid_id: moment.kid_id,
    title: moment.title,
    content: moment.content,
    image_url: imageUrl(moment.photo),
    created_at: moment.created_at,
    taken_on: moment.taken_on,
    milestone: moment.milestone,
  };
}

/** For an id in the URL that cannot be one (the models' own words for "no such row"). */
export const KID_NOT_FOUND = ACCESS_MESSAGES.kidNotFound;
export const DAILY_LOG_NOT_FOUND = ACCESS_MESSAGES.momentNotFound;
