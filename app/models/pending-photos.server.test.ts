import { describe, expect, it } from "vitest";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { db } from "~/lib/db.server";
import { isStored } from "~/images/test-fixtures.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { findImageByKey } from "~/images/storage.server";
import * as pendingApi from "~/routes/api/kids-pending-photos";
import { canViewImage } from "./access.server";
import { createKid } from "./kids.server";
import { createMoment } from "./moment-changes.server";
import { befriend, jpeg } from "./kids-test-helpers.server";
import { keepPendingPhotos, PENDING_HOURS, sweepPendingPhotos } from "./pending-photos.server";

// Photos chosen in a moment's form that wait for their alt texts (docs/decisions/0067-one-photo-control.md):
// kept one by one (a refused file named, the others kept), seen by their sender only, taken by
// their sender's moment only, swept when never taken.

async function family() {
  const owner = await makeUser();
  const friend = await makeUser();
  await befriend(owner.id, friend.id);
  const made = await createKid(owner.id, { name: "Elsa", birth_date: "2020-01-01", relationship: "Mom" }, null);
  if (!made.ok) throw new Error("setup");
  return { owner, friend, kid: made.kid };
}

const upload = async (bytes: Buffer, name: string) => ({ file: await uploadFromBuffer(bytes, name, "image/jpeg") });

describe("pending photos", () => {
  it("keeps each acceptable photo and names a refused file; only their sender sees them or puts them in a moment", async () => {
    const { owner, friend, kid } = await family();
    const kept = await keepPendingPhotos(owner.id, kid.id, [
      { ...(await upload(await jpeg(40, 30), "a.jpg")), slot: 1 },
      { ...(await upload(Buffer.from("not an image"), "b.jpg")), slot: 2 },
      { ...(await upload(await jpeg(41, 30), "c.jpg")), slot: 3 },
    ]);
    if (!kept.ok) throw new Error("keep");
    expect(kept.kept.map((p) => [p.slot, p.width])).toEqual([
      [1, 40],
      [3, 41],
    ]);
    expect(kept.refused).toEqual([{ slot: 2, filename: "b.jpg", messages: ["Only image files are accepted."] }]);
    const image = (await findImageByKey(kept.kept[0]!.key))!;
    expect(await canViewImage(owner.id, image)).toBe(true);
    expect(await canViewImage(friend.id, image)).toBe(false);
    // nobody else may keep photos for this kid
    const stranger = await makeUser();
    const refused = await keepPendingPhotos(stranger.id, kid.id, [
      { ...(await upload(await jpeg(), "x.jpg")), slot: 1 },
    ]);
    expect(refused.ok).toBe(false);

    // another parent cannot name them in a moment of their own kid: the moment has no photo
    const other = await createKid(friend.id, { name: "Tom", birth_date: "2020-01-01", relationship: "Dad" }, null);
    if (!other.ok) throw new Error("setup");
    const pending = kept.kept.map((p) => ({ id: p.id, alt: "x" }));
    const stolen = await createMoment(
      friend.id,
      other.kid.id,
      { title: "Mine", content: "Mine" },
      { added: [], pending },
    );
    expect(stolen.ok && stolen.moment.photo_count).toBe(0);
    // their sender's moment takes them, in order
    const made = await createMoment(owner.id, kid.id, { title: "Zoo", content: "Lions" }, { added: [], pending });
    if (!made.ok) throw new Error("create");
    expect(made.moment.photos.map((p) => p.key)).toEqual(kept.kept.map((p) => p.key));
    expect(await db()("pending_photos").where({ uploader_id: owner.id }).count({ n: "*" }).first()).toMatchObject({
      n: 0,
    });
  });

  it(`sweeps those never taken after ${PENDING_HOURS} hours, rows and files`, async () => {
    const { owner, kid } = await family();
    const kept = await keepPendingPhotos(owner.id, kid.id, [{ ...(await upload(await jpeg(), "a.jpg")), slot: 1 }]);
    if (!kept.ok) throw new Error("keep");
    const { id, key } = kept.kept[0]!;
    expect(await sweepPendingPhotos()).toBe(0);
    const later = Date.now() + (PENDING_HOURS * 3600 + 60) * 1000;
    expect(await sweepPendingPhotos(later)).toBeGreaterThanOrEqual(1);
    expect(await db()("images").where({ id }).first()).toBeUndefined();
    expect(await isStored(key)).toBe(false);
  });

  it("POST /api/kids/{id}/pending_photos: 201 with the photo, or the file's reason", async () => {
    const { owner, friend, kid } = await family();
    const post = async (cookie: string, bytes: Buffer) => {
      const form = new FormData();
      form.set("image", new Blob([new Uint8Array(bytes)], { type: "image/jpeg" }), "p.jpg");
      const request = req(`/api/kids/${kid.id}/pending_photos`, { cookie, form });
      return (await pendingApi.action(args(request, { kidId: String(kid.id) }) as never)) as Response;
    };
    const ok = await post(await cookieFor(owner), await jpeg(50, 40));
    expect(ok.status).toBe(201);
    expect((await ok.json()).photo).toMatchObject({ width: 50, height: 40, key: expect.any(String) });
    const bad = await post(await cookieFor(owner), Buffer.from("not an image"));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ errors: { message: "Only image files are accepted." } });
    expect((await post(await cookieFor(friend), await jpeg())).status).toBe(403);
  });
});
