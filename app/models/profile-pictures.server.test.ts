import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { countImageRows, isStored, listAllUploads, makeImage } from "~/images/test-fixtures.server";
import { deleteProfilePicture, hasProfilePicture, setProfilePicture } from "./profile-pictures.server";
import { getUserById } from "./users.server";
import { makeUser } from "../../tests/helpers";

// Profile pictures against a real database and real stored files (through the photo store: this
// file runs on the disk and the S3 backend, vitest.config.ts).

async function set(userId: number, bytes: Buffer, opts?: { mustExist?: boolean }) {
  return setProfilePicture(userId, await uploadFromBuffer(bytes), opts);
}

describe("setProfilePicture", () => {
  it("stores the first picture: one kind-user image owned by the user, joined as user.photo", async () => {
    const user = await makeUser();
    const result = await set(user.id, await makeImage("jpeg", 800, 600));
    if (!result.ok) throw new Error("refused");
    expect(result.photo.widths).toEqual([160, 320, 640, 800]);
    const again = await getUserById(user.id);
    expect(again?.photo).toEqual(result.photo);
    const row = await db()("images").where({ key: result.photo.key }).first("kind", "owner_id");
    expect(row).toEqual({ kind: "user", owner_id: user.id });
    for (const w of result.photo.widths) expect(await isStored(result.photo.key, `${w}.webp`)).toBe(true);
    expect(await hasProfilePicture(user.id)).toBe(true);
  });

  it("replacing removes the old row and, after the commit, the old files", async () => {
    const user = await makeUser();
    const first = await set(user.id, await makeImage("png", 400, 400));
    if (!first.ok) throw new Error("refused");
    const before = await countImageRows();
    const second = await set(user.id, await makeImage("webp", 500, 500));
    if (!second.ok) throw new Error("refused");
    expect(second.photo.key).not.toBe(first.photo.key);
    expect(await countImageRows()).toBe(before);
    expect(await db()("images").where({ key: first.photo.key }).first()).toBeUndefined();
    expect(await isStored(first.photo.key)).toBe(false);
    expect(await isStored(second.photo.key)).toBe(true);
    expect((await getUserById(user.id))?.photo?.key).toBe(second.photo.key);
  });

  it("refuses what is not a photo and changes nothing (database and files)", async () => {
    const user = await makeUser();
    const first = await set(user.id, await makeImage("jpeg", 300, 300));
    if (!first.ok) throw new Error("refused");
    const files = await listAllUploads();
    const rows = await countImageRows();
    for (const bytes of [
      Buffer.from("just some text, named whatever"),
      Buffer.from("%PDF-1.4\n%âãÏÓ\n1 0 obj\n"),
      Buffer.alloc(0),
    ]) {
      const result = await set(user.id, bytes);
      expect(result).toEqual({
        ok: false,
        kind: "invalid",
        message: "Only image files are accepted.",
        fieldErrors: { image: ["Only image files are accepted."] },
      });
    }
    expect(await listAllUploads()).toEqual(files);
    expect(await countImageRows()).toBe(rows);
    expect((await getUserById(user.id))?.photo?.key).toBe(first.photo.key);
  });

  it("mustExist: a user without a picture gets not-found, nothing is stored", async () => {
    const user = await makeUser();
    const files = await listAllUploads();
    const rows = await countImageRows();
    expect(await set(user.id, await makeImage("jpeg", 300, 300), { mustExist: true })).toEqual({
      ok: false,
      kind: "not-found",
      message: "profile picture not found",
    });
    expect(await listAllUploads()).toEqual(files);
    expect(await countImageRows()).toBe(rows);
    expect((await getUserById(user.id))?.photo).toBeNull();
  });

  it("mustExist with a picture replaces it", async () => {
    const user = await makeUser();
    const first = await set(user.id, await makeImage("jpeg", 300, 300));
    const second = await set(user.id, await makeImage("gif", 200, 200), { mustExist: true });
    if (!first.ok || !second.ok) throw new Error("refused");
    expect(await isStored(first.photo.key)).toBe(false);
    expect((await getUserById(user.id))?.photo?.key).toBe(second.photo.key);
  });

  it("a picture deleted while the new one was processed counts as missing for mustExist", async () => {
    const user = await makeUser();
    const first = await set(user.id, await makeImage("jpeg", 300, 300));
    if (!first.ok) throw new Error("refused");
    const files = (await listAllUploads()).filter((f) => !f.startsWith(first.photo.key));
    const upload = await uploadFromBuffer(await makeImage("jpeg", 2400, 1800));
    const racing = setProfilePicture(user.id, upload, { mustExist: true });
    await deleteProfilePicture(user.id); // lands while the upload is being processed
    expect(await racing).toEqual({ ok: false, kind: "not-found", message: "profile picture not found" });
    expect(await listAllUploads()).toEqual(files); // the new files were removed, the old ones deleted
    expect((await getUserById(user.id))?.photo).toBeNull();
  });
});

describe("deleteProfilePicture", () => {
  it("removes the row and the files; false when there is none", async () => {
    const user = await makeUser();
    const first = await set(user.id, await makeImage("avif", 300, 200));
    if (!first.ok) throw new Error("refused");
    expect(await deleteProfilePicture(user.id)).toBe(true);
    expect((await getUserById(user.id))?.photo).toBeNull();
    expect(await db()("images").where({ key: first.photo.key }).first()).toBeUndefined();
    expect(await isStored(first.photo.key)).toBe(false);
    expect(await deleteProfilePicture(user.id)).toBe(false);
    expect(await hasProfilePicture(user.id)).toBe(false);
  });

  it("leaves other users' pictures alone", async () => {
    const a = await makeUser();
    const b = await makeUser();
    const pa = await set(a.id, await makeImage("jpeg", 300, 300));
    const pb = await set(b.id, await makeImage("jpeg", 300, 300));
    if (!pa.ok || !pb.ok) throw new Error("refused");
    await deleteProfilePicture(a.id);
    expect((await getUserById(b.id))?.photo?.key).toBe(pb.photo.key);
    expect(await isStored(pb.photo.key)).toBe(true);
  });
});
