// Kids and daily logs as api-contract.md returns them.
import { photoUrl } from "~/images/photo";
import { apiError } from "./responses.server";
import type { Kid } from "~/models/kids.server";
import type { Moment } from "~/models/moments.server";

/** Kid: `{id, user_id, name, birth_date, relationship, kid_image_url}`. */
export function serializeKid(kid: Kid) {
  return {
    id: kid.id,
    user_id: kid.user_id,
    name: kid.name,
    birth_date: kid.birth_date,
    relationship: kid.relationship,
    kid_image_url: kid.photo ? photoUrl(kid.photo) : null,
  };
}

/** DailyLog: `{id, kid_id, title, content, image_url, created_at}`. */
export function serializeDailyLog(moment: Moment) {
  return {
    id: moment.id,
    kid_id: moment.kid_id,
    title: moment.title,
    content: moment.content,
    image_url: moment.photo ? photoUrl(moment.photo) : null,
    created_at: moment.created_at,
  };
}

/** A refusal on /api: 404 with the route's "not found" message, 403 when not visible or not the owner. */
export function apiRefusal(refusal: { reason: "not-found" | "hidden" | "forbidden" }, notFoundMessage: string): Response {
  return refusal.reason === "not-found" ? apiError(404, notFoundMessage) : apiError(403, NOT_AUTHORIZED);
}

export const NOT_AUTHORIZED = "You are not authorized";
export const KID_NOT_FOUND = "Kid not found";
export const DAILY_LOG_NOT_FOUND = "Daily log not found";
