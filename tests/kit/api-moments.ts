// What the tests of the moments API share (app/routes/api/daily-logs.test.ts and
// daily-logs-id.test.ts): the shape of a moment as the API answers it, the multipart form a client
// posts, and a parent with a kid and a moment, a friend and a stranger, each signed in.
import { expect } from "vitest";
import { createKid } from "../../app/models/kids.server";
import { befriend, jpegUpload } from "../../app/models/kids-test-helpers.server";
import { createMoment } from "../../app/models/moment-changes.server";
import { cookieFor, makeUser } from "../helpers";

export const LOG_SHAPE = {
  id: expect.any(Number),
  kid_id: expect.any(Number),
  title: expect.any(String),
  content: expect.any(String),
  image_url: expect.stringMatching(/^\/images\/[A-Za-z0-9_-]+\/\d+\.webp$/),
  created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  taken_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
  milestone: null,
  posted_by: expect.any(Number),
  photos: [
    {
      url: expect.stringMatching(/^\/images\/[A-Za-z0-9_-]+\/\d+\.webp$/),
      width: expect.any(Number),
      height: expect.any(Number),
      alt: expect.any(String),
      original_url: expect.stringMatching(/^\/images\/[A-Za-z0-9_-]+\/original\.jpg$/),
    },
  ],
  videos: [],
};
/** What the kid's owner and co-parents see besides (docs/api.md): the audience. */
export const PARENT_SHAPE = { ...LOG_SHAPE, audience: "everyone" };

export function form(fields: Record<string, string>, image?: Buffer) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  if (image) fd.set("image", new Blob([new Uint8Array(image)], { type: "image/jpeg" }), "moment.jpg");
  return fd;
}

export async function setup() {
  const owner = await makeUser();
  const friend = await makeUser();
  const stranger = await makeUser();
  await befriend(friend.id, owner.id);
  const made = await createKid(owner.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
  if (!made.ok) throw new Error("setup");
  const moment = await createMoment(owner.id, made.kid.id, { title: "Park", content: "Pigeons" }, await jpegUpload());
  if (!moment.ok) throw new Error("setup");
  return {
    owner,
    friend,
    kid: made.kid,
    moment: moment.moment,
    cookies: { owner: await cookieFor(owner), friend: await cookieFor(friend), stranger: await cookieFor(stranger) },
  };
}
