import sharp, { type Sharp } from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { pairOf } from "~/models/friendships.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import { photoUrl } from "~/images/photo";
import { photoStore } from "~/images/photo-store.server";
import { withNewImage, type ImageKind, type StoredImage } from "~/images/storage.server";
import { makeImage, readStored } from "~/images/test-fixtures.server";
import type { User } from "~/models/users.server";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { insertFriendship } from "../../tests/unit/friends-fixtures";
import { loader } from "./images";

// The image route against a real database, real sessions and real stored files; this file runs
// once per photo store backend (vitest.config.ts: local disk, and S3 on an s3rver started for the
// run) and reaches the stored files only through the store.

/**
 * A stored photo; a kid's or a moment's is that of a new kid (and moment) of `ownerId`, since the
 * access module follows a photo to its kid or moment (app/models/access.server.ts canViewImage).
 */
async function store(bytes: Buffer, kind: ImageKind, ownerId: number): Promise<StoredImage> {
  const result = await withNewImage(await uploadFromBuffer(bytes), { kind, ownerId }, async (trx, imageId) => {
    if (kind === "user") return;
    const at = new Date().toISOString();
    const kid = { user_id: ownerId, name: "Pic", birth_date: "2020-01-02", relationship: "Mom", created_at: at };
    const [row] = await trx("kids")
      .insert({ ...kid, image_id: kind === "kid" ? imageId : null })
      .returning("id");
    if (kind !== "moment") return;
    const kidId = Number(typeof row === "object" ? row.id : row);
    await trx("daily_logs").insert({
      kid_id: kidId,
      title: "Pic",
      content: "Pic",
      taken_on: "2024-06-06",
      image_id: imageId,
      created_at: at,
      updated_at: at,
    });
  });
  if (!result.ok) throw new Error(result.message);
  return result.image;
}

/** GET (or HEAD) a photo URL through the route's loader. */
async function get(url: string, opts: { cookie?: string; method?: string; headers?: Record<string, string> } = {}) {
  const match = /^\/images\/([^/]*)\/([^/]*)$/.exec(url);
  if (!match) throw new Error(`not an image URL: ${url}`);
  const request = req(url, { method: opts.method ?? "GET", cookie: opts.cookie, headers: opts.headers });
  return loader(args(request, { key: decodeURIComponent(match[1]!), file: decodeURIComponent(match[2]!) }));
}

let owner: User, friend: User, stranger: User, requester: User, denied: User;
const cookies: Record<string, string> = {};
let kidPhoto: StoredImage, logPhoto: StoredImage, profilePhoto: StoredImage;

beforeAll(async () => {
  owner = await makeUser();
  friend = await makeUser();
  stranger = await makeUser();
  requester = await makeUser();
  denied = await makeUser();
  await insertFriendship(friend, owner, "accepted"); // friend sent, owner accepted
  await insertFriendship(requester, owner, "pending"); // not yet accepted
  await insertFriendship(owner, denied, "denied");
  for (const [name, user] of Object.entries({ owner, friend, stranger, requester, denied }))
    cookies[name] = await cookieFor(user);
  kidPhoto = await store(await makeImage("jpeg", 1600, 1200), "kid", owner.id);
  logPhoto = await store(await makeImage("png", 900, 600), "moment", owner.id);
  profilePhoto = await store(await makeImage("webp", 400, 400), "user", owner.id);
});

describe("who may see a photo", () => {
  const viewers = ["owner", "friend", "stranger", "requester", "denied", "signed out"] as const;
  const expected = { owner: 200, friend: 200, stranger: 404, requester: 404, denied: 404, "signed out": 404 };

  for (const which of ["kid", "moment"] as const) {
    for (const viewer of viewers) {
      it(`${which} photo, ${viewer}: ${expected[viewer]}`, async () => {
        const photo = which === "kid" ? kidPhoto : logPhoto;
        const res = await get(photoUrl(photo, 320), { cookie: cookies[viewer] });
        expect(res.status).toBe(expected[viewer]);
      });
    }
  }

  for (const viewer of viewers) {
    const status = viewer === "signed out" ? 404 : 200;
    it(`profile picture, ${viewer}: ${status}`, async () => {
      const res = await get(photoUrl(profilePhoto), { cookie: cookies[viewer] });
      expect(res.status).toBe(status);
    });
  }

  it("access ends as soon as the friendship does", async () => {
    const a = await makeUser();
    const b = await makeUser();
    await insertFriendship(a, b, "accepted");
    const photo = await store(await makeImage("jpeg", 300, 200), "moment", a.id);
    const cookie = await cookieFor(b);
    expect((await get(photoUrl(photo), { cookie })).status).toBe(200);
    await db()("friendships").where(pairOf(a.id, b.id)).delete();
    expect((await get(photoUrl(photo), { cookie })).status).toBe(404);
  });
});

describe("responses", () => {
  it("200: the WebP bytes with the right headers", async () => {
    const res = await get(photoUrl(kidPhoto, 640), { cookie: cookies.owner });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(await readStored(kidPhoto.key, "640.webp"))).toBe(true);
    expect(res.headers.get("Content-Type")).toBe("image/webp");
    expect(res.headers.get("Content-Length")).toBe(String(body.length));
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Cache-Control")).toBe("private, max-age=31536000, immutable");
    expect(res.headers.get("ETag")).toBe(`"${kidPhoto.key}-640"`);
    const meta = await sharp(body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 640, 480]);
  });

  it("a viewer who goes away mid-transfer does not bring the server down", async () => {
    const res = await get(photoUrl(kidPhoto, 1280), { cookie: cookies.owner });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    // what the server does when the socket closes early: cancel the body with a reason
    await reader.cancel(new Error("client went away"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // still serving
    expect((await get(photoUrl(kidPhoto, 160), { cookie: cookies.owner })).status).toBe(200);
  });

  it("a request abandoned before its body is read lets go of the stored file", async () => {
    // a noisy photo, so its 1280 px file is far larger than what a stream buffers ahead
    const noisy = await sharp({
      create: {
        width: 1600,
        height: 1200,
        channels: 3,
        background: "#888",
        noise: { type: "gaussian", mean: 128, sigma: 60 },
      },
    })
      .jpeg({ quality: 95 })
      .toBuffer();
    const photo = await store(noisy, "moment", owner.id);
    const controller = new AbortController();
    const request = new Request(`http://localhost:3000${photoUrl(photo, 1280)}`, {
      headers: { Cookie: cookies.owner! },
      signal: controller.signal,
    });
    const res = await loader(args(request, { key: photo.key, file: "1280.webp" }));
    expect(res.status).toBe(200);
    const size = Number(res.headers.get("Content-Length"));
    expect(size).toBeGreaterThan(500_000);
    controller.abort(); // the browser went away: the file (an S3 connection) is let go, the body ends
    const received = (await res.arrayBuffer()).byteLength;
    expect(received).toBeLessThan(size);
    // still serving, the whole file
    const again = await get(photoUrl(photo, 1280), { cookie: cookies.owner });
    expect((await again.arrayBuffer()).byteLength).toBe(size);
  });

  it("every stored width is served; the default URL is the largest", async () => {
    for (const w of kidPhoto.widths) {
      const res = await get(photoUrl(kidPhoto, w), { cookie: cookies.friend });
      expect(res.status).toBe(200);
      expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBe(w);
    }
    expect(photoUrl(kidPhoto)).toBe(`/images/${kidPhoto.key}/1280.webp`);
  });

  it("304 for a matching If-None-Match, but only after the authorization check", async () => {
    const url = photoUrl(kidPhoto, 320);
    const etag = (await get(url, { cookie: cookies.owner })).headers.get("ETag")!;
    for (const value of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const res = await get(url, { cookie: cookies.friend, headers: { "If-None-Match": value } });
      expect(res.status).toBe(304);
      expect(await res.text()).toBe("");
      expect(res.headers.get("ETag")).toBe(etag);
      expect(res.headers.get("Cache-Control")).toBe("private, max-age=31536000, immutable");
    }
    expect((await get(url, { cookie: cookies.friend, headers: { "If-None-Match": '"something-else"' } })).status).toBe(
      200,
    );
    expect((await get(url, { cookie: cookies.stranger, headers: { "If-None-Match": etag } })).status).toBe(404);
    expect((await get(url, { headers: { "If-None-Match": etag } })).status).toBe(404);
  });

  it("HEAD answers the headers without a body", async () => {
    const res = await get(photoUrl(logPhoto, 160), { cookie: cookies.owner, method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
    expect(res.headers.get("Content-Length")).toBe(String((await photoStore().stat(logPhoto.key, "160.webp"))!.size));
    expect(res.headers.get("Content-Type")).toBe("image/webp");
    expect((await get(photoUrl(logPhoto, 160), { cookie: cookies.stranger, method: "HEAD" })).status).toBe(404);
  });

  it("the same plain 404 for unknown keys, widths and malformed names", async () => {
    const forbidden = await get(photoUrl(kidPhoto, 320), { cookie: cookies.stranger });
    const reference = {
      status: forbidden.status,
      type: forbidden.headers.get("Content-Type"),
      body: await forbidden.text(),
    };
    expect(reference.status).toBe(404);
    const urls = [
      `/images/${"A".repeat(24)}/320.webp`, // unknown key
      `/images/${kidPhoto.key}/999.webp`, // width that does not exist
      `/images/${kidPhoto.key}/2560.webp`,
      `/images/${kidPhoto.key}/320.png`,
      `/images/${kidPhoto.key}/0320.webp`,
      `/images/${kidPhoto.key}/320.webp.bak`,
      `/images/${kidPhoto.key}/.webp`,
      `/images/${encodeURIComponent("../../etc")}/passwd`,
      `/images/${kidPhoto.key.slice(0, 10)}/320.webp`,
      `/images/${kidPhoto.key}%2F..%2F/320.webp`,
    ];
    for (const url of urls) {
      const res = await get(url, { cookie: cookies.owner });
      expect({ url, status: res.status, type: res.headers.get("Content-Type"), body: await res.text() }).toEqual({
        url,
        ...reference,
      });
      expect(res.headers.get("ETag")).toBeNull();
    }
  });

  it("a missing file is a 404, not a crash", async () => {
    const photo = await store(await makeImage("jpeg", 200, 200), "user", owner.id);
    await photoStore().deleteAll(photo.key); // the row stays, the files are gone
    const res = await get(photoUrl(photo, 200), { cookie: cookies.owner });
    expect(res.status).toBe(404);
  });
});

/** A camera's metadata on an image: EXIF with GPS, camera and date, XMP naming a person, a P3 profile. */
function withEveryMetadata(image: Sharp): Sharp {
  return image
    .withExif({
      IFD0: { Make: "Phone", Model: "Phone 15", Copyright: "Family", ImageDescription: "Our house" },
      IFD2: { DateTimeOriginal: "2024:06:06 18:04:05" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "48/1 51/1 2400/100",
        GPSLongitudeRef: "E",
        GPSLongitude: "2/1 21/1 300/100",
      },
    })
    .withXmp(
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Mom</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>',
    )
    .withIccProfile("p3");
}

describe("privacy of the bytes", () => {
  it("a JPEG with GPS EXIF is served with no EXIF, XMP, IPTC or ICC at all", async () => {
    const withGps = await withEveryMetadata(sharp(await makeImage("jpeg", 1024, 768)))
      .jpeg()
      .toBuffer();
    const original = await sharp(withGps).metadata();
    expect(original.exif?.toString("latin1")).toContain("Phone 15");
    expect(original.xmp).toBeDefined();
    expect(original.icc).toBeDefined();

    const photo = await store(withGps, "moment", owner.id);
    for (const w of photo.widths) {
      const res = await get(photoUrl(photo, w), { cookie: cookies.friend });
      const body = Buffer.from(await res.arrayBuffer());
      const meta = await sharp(body).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.iptc).toBeUndefined();
      expect(meta.icc).toBeUndefined();
      expect(meta.orientation).toBeUndefined();
      const text = body.toString("latin1");
      for (const needle of ["Exif", "EXIF", "XMP ", "ICCP", "Phone", "GPS", "Mom", "2024:06:06"])
        expect(text).not.toContain(needle);
    }
  });

  it("a sideways photo (EXIF orientation 6) is served upright", async () => {
    // stored 1600×1200 (landscape, red left / blue right) with "rotate 90° clockwise to display"
    const sideways = await sharp(await makeImage("jpeg", 1600, 1200))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const photo = await store(sideways, "kid", owner.id);
    expect([photo.width, photo.height]).toEqual([1200, 1600]);
    expect(photo.widths).toEqual([160, 320, 640, 1200]);
    const res = await get(photoUrl(photo), { cookie: cookies.owner });
    const body = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(body).metadata();
    expect([meta.width, meta.height]).toEqual([1200, 1600]); // portrait now
    const { data, info } = await sharp(body).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) =>
      data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3);
    expect(at(600, 100)[0]).toBeGreaterThan(150); // top is the red (formerly left) half
    expect(at(600, 1500)[2]).toBeGreaterThan(150); // bottom is the blue half
  });
});

describe("the full-size copy of a moment's photo (original.jpg)", () => {
  // a phone photo as it comes: stored sideways (orientation 6), with GPS, camera, XMP and a P3 profile
  async function phonePhoto(width: number, height: number): Promise<Buffer> {
    return withEveryMetadata(sharp(await makeImage("jpeg", width, height)))
      .withMetadata({ orientation: 6 })
      .jpeg({ quality: 95 })
      .toBuffer();
  }
  const originalOf = (photo: StoredImage) => `/images/${photo.key}/original.jpg`;

  it("is stored at full size, upright, in sRGB, with no GPS or any other metadata, and served as a download", async () => {
    const input = await phonePhoto(2400, 1800);
    const source = await sharp(input).metadata();
    expect(source.exif?.toString("latin1")).toContain("Phone 15");
    expect(source.exif?.includes(Buffer.from([0x25, 0x88]))).toBe(true); // IFD0's GPS entry (tag 0x8825, "II" order)
    expect([source.orientation, Boolean(source.icc), Boolean(source.xmp)]).toEqual([6, true, true]);

    const photo = await store(input, "moment", owner.id);
    expect(photo.original).toEqual({ width: 1800, height: 2400 }); // every pixel, upright
    expect(photo.widths).toEqual([160, 320, 640, 1280]);
    expect(await photoStore().list(photo.key)).toEqual([
      "1280.webp",
      "160.webp",
      "320.webp",
      "640.webp",
      "original.jpg",
    ]);

    const res = await get(originalOf(photo), { cookie: cookies.friend });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(await readStored(photo.key, "original.jpg"))).toBe(true);
    expect(res.headers.get("Content-Type")).toBe("image/jpeg");
    expect(res.headers.get("Content-Length")).toBe(String(body.length));
    expect(res.headers.get("Cache-Control")).toBe("private, max-age=31536000, immutable");
    expect(res.headers.get("ETag")).toBe(`"${photo.key}-original"`);
    expect(res.headers.get("Content-Disposition")).toBe(
      `attachment; filename="2024-06-06 Pic - Pic.jpg"; filename*=UTF-8''2024-06-06%20Pic%20-%20Pic.jpg`,
    );

    const meta = await sharp(body).metadata();
    expect([meta.format, meta.width, meta.height, meta.space]).toEqual(["jpeg", 1800, 2400, "srgb"]);
    for (const field of ["exif", "xmp", "iptc", "icc", "orientation"] as const) expect(meta[field]).toBeUndefined();
    const text = body.toString("latin1");
    for (const needle of ["Exif", "GPS", "XMP", "ICC_PROFILE", "Phone", "Mom", "2024:06:06"])
      expect(text).not.toContain(needle);
    // upright: the red (formerly left) half is on top; colours as sent (the P3 profile applied, then sRGB)
    const { data, info } = await sharp(body).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    const [r1, g1, b1] = at(900, 100);
    const [r2, , b2] = at(900, 2300);
    expect([Math.abs(r1! - 220) < 12, Math.abs(g1! - 40) < 12, Math.abs(b1! - 40) < 12]).toEqual([true, true, true]);
    expect([b2! > 200, r2! < 60]).toEqual([true, true]);
  });

  it("the same access rule as the photo's sizes; HEAD and 304 alike", async () => {
    const photo = await store(await makeImage("jpeg", 800, 600), "moment", owner.id);
    const expected = { owner: 200, friend: 200, stranger: 404, requester: 404, denied: 404, "signed out": 404 };
    for (const [viewer, status] of Object.entries(expected))
      expect([viewer, (await get(originalOf(photo), { cookie: cookies[viewer] })).status]).toEqual([viewer, status]);
    const head = await get(originalOf(photo), { cookie: cookies.friend, method: "HEAD" });
    expect([head.status, head.body, head.headers.get("Content-Length")]).toEqual([
      200,
      null,
      String((await photoStore().stat(photo.key, "original.jpg"))!.size),
    ]);
    const etag = head.headers.get("ETag")!;
    expect((await get(originalOf(photo), { cookie: cookies.friend, headers: { "If-None-Match": etag } })).status).toBe(
      304,
    );
    expect(
      (await get(originalOf(photo), { cookie: cookies.stranger, headers: { "If-None-Match": etag } })).status,
    ).toBe(404);
  });

  it("kids' photos and profile pictures keep no full-size copy; a photo stored before has none: 404", async () => {
    for (const photo of [kidPhoto, profilePhoto]) {
      expect(photo.original).toBeUndefined();
      expect(await photoStore().list(photo.key)).not.toContain("original.jpg");
      expect((await get(originalOf(photo), { cookie: cookies.owner })).status).toBe(404);
    }
    const older = await store(await makeImage("jpeg", 800, 600), "moment", owner.id);
    await db()("images").where({ key: older.key }).update({ original_width: null, original_height: null });
    expect((await get(originalOf(older), { cookie: cookies.owner })).status).toBe(404);
  });

  it("goes with its photo: deleting the moment's photo removes original.jpg too", async () => {
    const { deleteImageFiles } = await import("~/images/storage.server");
    const photo = await store(await makeImage("jpeg", 800, 600), "moment", owner.id);
    expect(await photoStore().stat(photo.key, "original.jpg")).not.toBeNull();
    await deleteImageFiles([photo.key]);
    expect(await photoStore().list(photo.key)).toEqual([]);
  });
});
