import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { photoUrl } from "~/images/photo";
import { deleteImageFiles, withNewImage } from "~/images/storage.server";
import { isStored, listStored, listUploads } from "~/images/test-fixtures.server";
import { setProfilePicture } from "~/models/profile-pictures.server";
import { getUserById, type User } from "~/models/users.server";
import { loader as imageLoader } from "~/routes/images";
import { seedDemo } from "../../db/seed/demo.server";
import { args, cookieFor, makeUser, req } from "../helpers";
import { runNpmScript } from "./support/npm-script";

// The demo seed against a real database and real files: what it creates, that its photos are
// real stored images, and that re-seeding replaces only demo data and leaves no orphan files.

const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await db()(table).where(where).count({ n: "*" }).first())?.n ?? 0);

async function userId(email: string): Promise<number> {
  const row = await db()("users").where({ email }).first("id");
  if (!row) throw new Error(`no user ${email}`);
  return Number(row.id);
}

/** The keys of the stored photos (through the photo store: this file runs on both backends). */
async function storedImageKeys(): Promise<string[]> {
  return [...new Set((await listStored()).map((f) => f.split("/")[0]!))].sort();
}

async function imageKeysInDb(): Promise<string[]> {
  return ((await db()("images").pluck("key")) as string[]).sort();
}

async function serve(url: string, cookie: string): Promise<Response> {
  const [, , key, file] = url.split("/");
  return imageLoader(args(req(url, { cookie }), { key: key!, file: file! }));
}

let firstKeys: string[] = [];

beforeAll(async () => {
  const { imageKeys } = await seedDemo();
  expect(imageKeys).toEqual([]); // nothing to replace the first time
  firstKeys = await imageKeysInDb();
});

describe("seedDemo", () => {
  it("creates the demo world: users, kids, moments, friendships, likes and comments", async () => {
    expect(await count("users", { is_demo: true })).toBeGreaterThanOrEqual(8);
    expect(await count("kids")).toBe(13);
    expect(await count("daily_logs")).toBeGreaterThanOrEqual(40);
    expect(await count("likes")).toBeGreaterThan(0);
    expect(await count("comments")).toBeGreaterThan(0);

    const demo = await userId("demo@aa.io");
    const accepted = await db()("friendships")
      .where({ status: "accepted" })
      .andWhere((q) => q.where({ user_id: demo }).orWhere({ friend_id: demo }));
    expect(accepted).toHaveLength(2);
    expect(await count("friendships", { friend_id: demo, status: "pending" })).toBe(1); // received
    expect(await count("friendships", { user_id: demo, status: "pending" })).toBe(1); // sent
  });

  it("gives photos to some users, most kids and most moments, each with its own image", async () => {
    const users = await db()("users").where({ is_demo: true }).whereNotNull("image_id").count({ n: "*" }).first();
    expect(Number(users?.n)).toBeGreaterThanOrEqual(3);
    const kidsWith = await db()("kids").whereNotNull("image_id").count({ n: "*" }).first();
    expect(Number(kidsWith?.n)).toBeGreaterThan(13 / 2);
    const logsWith = await db()("daily_logs").whereNotNull("image_id").count({ n: "*" }).first();
    const logs = await count("daily_logs");
    expect(Number(logsWith?.n)).toBeGreaterThan(logs / 2);

    // no two rows share an image, and every images row is used by exactly one row
    const used = [
      ...(await db()("users").whereNotNull("image_id").pluck("image_id")),
      ...(await db()("kids").whereNotNull("image_id").pluck("image_id")),
      ...(await db()("daily_logs").whereNotNull("image_id").pluck("image_id")),
    ].map(Number);
    expect(new Set(used).size).toBe(used.length);
    expect(await count("images")).toBe(used.length);

    // kinds and owners follow the privacy rule's needs
    const kid = await db()("kids")
      .join("images", "images.id", "kids.image_id")
      .first("kids.user_id", "images.owner_id", "images.kind");
    expect(kid.kind).toBe("kid");
    expect(Number(kid.owner_id)).toBe(Number(kid.user_id));
    const log = await db()("daily_logs")
      .join("kids", "kids.id", "daily_logs.kid_id")
      .join("images", "images.id", "daily_logs.image_id")
      .first("kids.user_id", "images.owner_id", "images.kind");
    expect(log.kind).toBe("log");
    expect(Number(log.owner_id)).toBe(Number(log.user_id));
  });

  it("stores real derivatives on disk, served to the people allowed to see them", async () => {
    expect(await storedImageKeys()).toEqual(firstKeys);
    const rows = await db()("images").select("key", "widths");
    for (const row of rows) {
      for (const w of String(row.widths).split(",")) {
        expect(await isStored(row.key, `${w}.webp`)).toBe(true);
      }
    }

    const demo = (await getUserById(await userId("demo@aa.io")))!;
    const cookie = await cookieFor(demo);
    expect(demo.photo).not.toBeNull();
    const own = await serve(photoUrl(demo.photo!), cookie);
    expect(own.status).toBe(200);
    expect(own.headers.get("Content-Type")).toBe("image/webp");
    const meta = await sharp(Buffer.from(await own.arrayBuffer())).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.exif).toBeUndefined();

    // a friend's (marnie's) kid: visible to demo; a stranger's (priya's) kid: not
    const kidPhoto = async (email: string) => {
      const row = await db()("kids")
        .join("images", "images.id", "kids.image_id")
        .where("kids.user_id", await userId(email))
        .first("images.key", "images.widths");
      return photoUrl({ key: row.key, widths: String(row.widths).split(",").map(Number) }, 320);
    };
    expect((await serve(await kidPhoto("marnie@aa.io"), cookie)).status).toBe(200);
    expect((await serve(await kidPhoto("priya@aa.io"), cookie)).status).toBe(404);
  });
});

describe("re-seeding", () => {
  let outsider: User;
  let outsiderKidImage: string;
  let outsiderPicture: string;

  beforeAll(async () => {
    outsider = await makeUser();
    const picture = await sharp({ create: { width: 300, height: 300, channels: 3, background: "#36c" } })
      .jpeg()
      .toBuffer();
    const set = await setProfilePicture(outsider.id, await uploadFromBuffer(picture));
    if (!set.ok) throw new Error("picture refused");
    outsiderPicture = set.photo.key;
    const kidPicture = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#c63" } })
      .jpeg()
      .toBuffer();
    const stored = await withNewImage(
      await uploadFromBuffer(kidPicture),
      { kind: "kid", ownerId: outsider.id },
      async (trx, imageId) => {
        await trx("kids").insert({
          user_id: outsider.id,
          name: "Outsider Kid",
          birth_date: "2020-01-01",
          relationship: "Dad",
          image_id: imageId,
          created_at: new Date().toISOString(),
        });
      },
    );
    if (!stored.ok) throw new Error("kid picture refused");
    outsiderKidImage = stored.image.key;

    const { imageKeys } = await seedDemo();
    await deleteImageFiles(imageKeys); // what `npm run db:seed` does after the commit
    expect([...imageKeys].sort()).toEqual(firstKeys);
  });

  it("keeps other accounts and everything of theirs", async () => {
    const again = await getUserById(outsider.id);
    expect(again).not.toBeNull();
    expect(again!.photo?.key).toBe(outsiderPicture);
    const kid = await db()("kids").where({ user_id: outsider.id }).first("name", "image_id");
    expect(kid.name).toBe("Outsider Kid");
    const kidImage = await db()("images").where({ id: kid.image_id }).first("key");
    expect(kidImage.key).toBe(outsiderKidImage);
    const cookie = await cookieFor(outsider);
    expect((await serve(photoUrl(again!.photo!), cookie)).status).toBe(200);
    expect((await serve(photoUrl({ key: outsiderKidImage, widths: [160, 320, 400] }, 160), cookie)).status).toBe(200);
  });

  it("replaces the demo data (same counts) with new photos and no orphan files", async () => {
    expect(await count("users", { is_demo: true })).toBeGreaterThanOrEqual(8);
    expect(await count("kids")).toBe(14); // 13 demo kids + the outsider's
    const keys = await imageKeysInDb();
    for (const old of firstKeys) expect(keys).not.toContain(old);
    expect(await storedImageKeys()).toEqual(keys);
    expect(listUploads().filter((f) => f.startsWith(".tmp"))).toEqual([]);
  });

  it("npm run db:seed, the command itself, re-seeds into the database and photo store in use (disk, or S3)", async () => {
    const before = await imageKeysInDb();
    // the child reads the same settings as this file: its database, and STORAGE=s3 in the s3 project
    const result = await runNpmScript("db:seed", [], { DATABASE_URL: process.env.DATABASE_URL ?? "" });
    expect(result.out).not.toContain("could not be seeded");
    expect(result.code).toBe(0);
    const keys = await imageKeysInDb();
    expect(keys.length).toBe(before.length);
    // the demo photos are new ones (the other accounts' stay), their old files gone
    expect(before.filter((k) => !keys.includes(k)).length).toBeGreaterThan(20);
    expect(await storedImageKeys()).toEqual(keys);
    // a child npm process seeding every demo photo, full-size copies included: slow on a busy machine
  }, 60_000);
});
