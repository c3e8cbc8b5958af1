// What the kids and moments page tests share (app/routes/kids-pages.test.ts and
// app/routes/moment-pages.test.ts): a parent with a kid, a friend and a stranger, each signed in;
// the multipart form a browser posts; what a loader or action threw.
import { createKid } from "../../app/models/kids.server";
import { befriend } from "../../app/models/kids-test-helpers.server";
import { cookieFor, makeUser } from "../helpers";

/** Status of what a loader or action threw (a redirect Response or a `data()` error). */
export async function thrown(fn: () => Promise<unknown>): Promise<{ status: number; location?: string | null }> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof Response) return { status: e.status, location: e.headers.get("Location") };
    const init = (e as { init?: { status?: number } }).init;
    if (init?.status) return { status: init.status };
    throw e;
  }
  throw new Error("expected a throw");
}

export function multipart(fields: Record<string, string>, image?: Buffer | Blob) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  if (image)
    fd.set(
      "image",
      image instanceof Blob ? image : new Blob([new Uint8Array(image)], { type: "image/jpeg" }),
      "photo.jpg",
    );
  return fd;
}

export async function people() {
  const owner = await makeUser();
  const friend = await makeUser();
  const stranger = await makeUser();
  await befriend(owner.id, friend.id);
  const made = await createKid(owner.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
  if (!made.ok) throw new Error("setup");
  return {
    owner,
    friend,
    kid: made.kid,
    cookies: { owner: await cookieFor(owner), friend: await cookieFor(friend), stranger: await cookieFor(stranger) },
  };
}
