import { afterEach, describe, expect, it } from "vitest";
import sharp from "sharp";
import * as imports from "./kids-imports";
import * as one from "./drafts-id";
import * as publish from "./drafts-publish";
import { args, cookieFor, makeUser, req } from "../../../tests/helpers";
import { resetEnvCache } from "../../../server/env.mjs";
import { db } from "~/lib/db.server";
import { createKid } from "~/models/kids.server";
import { befriend } from "~/models/kids-test-helpers.server";
import { tempFiles } from "~/images/test-fixtures.server";

// The drafts API (docs/api.md "Drafts", docs/decisions/0065-drafts.md): photos in, drafts out,
// each draft its author's alone; limits per request and per hour.

const jpegOn = (date: string) =>
  sharp({ create: { width: 20, height: 14, channels: 3, background: "#48c" } })
    .jpeg()
    .withExif({ IFD2: { DateTimeOriginal: `${date.replaceAll("-", ":")} 09:00:00` } })
    .toBuffer();

async function filesForm(files: { name: string; bytes: Buffer; type?: string }[]): Promise<FormData> {
  const form = new FormData();
  for (const f of files)
    form.append("image", new Blob([new Uint8Array(f.bytes)], { type: f.type ?? "image/jpeg" }), f.name);
  return form;
}

async function setup() {
  const parent = await makeUser();
  const other = await makeUser();
  await befriend(parent.id, other.id);
  const made = await createKid(parent.id, { name: "Noor", birth_date: "2021-05-05", relationship: "Dad" }, null);
  if (!made.ok) throw new Error("kid");
  return { parent, other, kid: made.kid, cookies: { parent: await cookieFor(parent), other: await cookieFor(other) } };
}

const post = (cookie: string, kidId: number, form: FormData) =>
  imports.action(args(req(`/api/kids/${kidId}/imports`, { cookie, form }), { kidId: String(kidId) }));

describe("POST /api/kids/{kidId}/imports", () => {
  const perHour = process.env.PHOTO_UPLOADS_PER_HOUR;
  afterEach(() => {
    if (perHour === undefined) delete process.env.PHOTO_UPLOADS_PER_HOUR;
    else process.env.PHOTO_UPLOADS_PER_HOUR = perHour;
    resetEnvCache();
  });

  it("answers 201 with the drafts by day and the files refused; then GET, PUT, publish, DELETE; nobody else sees a draft", async () => {
    const { kid, cookies } = await setup();
    const form = await filesForm([
      { name: "a.jpg", bytes: await jpegOn("2024-03-01") },
      { name: "b.jpg", bytes: await jpegOn("2024-03-02") },
      { name: "c.jpg", bytes: await jpegOn("2024-03-02") },
      { name: "notes.txt", bytes: Buffer.from("hello"), type: "text/plain" },
    ]);
    const res = await post(cookies.parent, kid.id, form);
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.refused).toEqual([{ name: "notes.txt", reason: "Only image files are accepted." }]);
    expect(body.drafts.map((d: { taken_on: string }) => d.taken_on)).toEqual(["2024-03-02", "2024-03-01"]);
    const draft = body.drafts[0];
    expect(Object.keys(draft).sort()).toEqual(
      [
        "audience",
        "content",
        "expires_at",
        "id",
        "kid_id",
        "milestone",
        "photos",
        "taken_on",
        "title",
        "updated_at",
      ].sort(),
    );
    expect(draft.title).toBe("2 March 2024");
    expect(draft.photos.map((p: { name: string }) => p.name)).toEqual(["b.jpg", "c.jpg"]);
    expect(tempFiles()).toEqual([]);

    const id = String(draft.id);
    const get = (cookie: string) => one.loader(args(req(`/api/drafts/${id}`, { cookie }), { id }));
    expect((await get(cookies.parent)).status).toBe(200);
    // anyone else, a friend of the parent included: as if it did not exist
    const hidden = await get(cookies.other);
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual({ errors: { message: "Draft not found" } });
    const notReady = await publish.action(
      args(req(`/api/drafts/${id}/publish`, { cookie: cookies.parent, method: "POST" }), { id }),
    );
    expect(notReady.status).toBe(400);
    expect(Object.keys((await notReady.json()).errors).sort()).toEqual(
      ["content", ...draft.photos.map((p: { id: number }) => `photo_${p.id}_alt`)].sort(),
    );
    const put = await one.action(
      args(
        req(`/api/drafts/${id}`, {
          cookie: cookies.parent,
          method: "PUT",
          json: {
            title: "Snow day",
            content: "First snow",
            taken_on: "2024-03-02",
            milestone: "none",
            audience: "everyone",
            ...Object.fromEntries(
              draft.photos.map((p: { id: number }, i: number) => [`photo_${p.id}_alt`, `Snow ${i}`]),
            ),
          },
        }),
        { id },
      ),
    );
    expect(put.status).toBe(200);
    expect((await put.json()).photos.map((p: { alt: string }) => p.alt)).toEqual(["Snow 0", "Snow 1"]);
    const otherPublish = await publish.action(
      args(req(`/api/drafts/${id}/publish`, { cookie: cookies.other, method: "POST" }), { id }),
    );
    expect(otherPublish.status).toBe(404);
    const published = await publish.action(
      args(req(`/api/drafts/${id}/publish`, { cookie: cookies.parent, method: "POST" }), { id }),
    );
    expect(published.status).toBe(201);
    const moment = await published.json();
    expect([moment.title, moment.taken_on, moment.photos.length]).toEqual(["Snow day", "2024-03-02", 2]);
    expect((await get(cookies.parent)).status).toBe(404);

    const rest = String(body.drafts[1].id);
    const del = (cookie: string) =>
      one.action(args(req(`/api/drafts/${rest}`, { cookie, method: "DELETE" }), { id: rest }));
    expect((await del(cookies.other)).status).toBe(404);
    expect((await del(cookies.parent)).status).toBe(200);
    expect(await db()("drafts").where("kid_id", kid.id).count({ n: "*" })).toEqual([{ n: 0 }]);
  });

  it("refuses more than ADD_PHOTOS_MAX_FILES files (400, nothing added), none, a kid that is not theirs, and past the hour's photos (429)", async () => {
    const { kid, cookies, other } = await setup();
    const bytes = await jpegOn("2024-04-01");
    const many = await filesForm(Array.from({ length: 51 }, (_, i) => ({ name: `p${i}.jpg`, bytes })));
    const tooMany = await post(cookies.parent, kid.id, many);
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).errors.image[0]).toMatch(/at most 50 photos at a time/);
    expect(await db()("drafts").where("kid_id", kid.id).count({ n: "*" })).toEqual([{ n: 0 }]);
    expect(tempFiles()).toEqual([]);

    const none = await post(cookies.parent, kid.id, new FormData());
    expect(none.status).toBe(400);

    // a friend may see the kid but not post on it: 403 before the body is read
    expect((await post(cookies.other, kid.id, await filesForm([{ name: "x.jpg", bytes }]))).status).toBe(403);
    const own = await createKid(other.id, { name: "Sam", birth_date: "2022-01-01", relationship: "Mom" }, null);
    if (!own.ok) throw new Error("kid");
    expect((await post(cookies.parent, own.kid.id, await filesForm([{ name: "x.jpg", bytes }]))).status).toBe(403);
    expect((await post(cookies.parent, own.kid.id + 1000, await filesForm([{ name: "x.jpg", bytes }]))).status).toBe(
      404,
    );

    process.env.PHOTO_UPLOADS_PER_HOUR = "52";
    resetEnvCache();
    // the 50 photos read of the 51 above count (every attempt does); two more make the hour's 52, the next is one too many
    expect(
      (
        await post(
          cookies.parent,
          kid.id,
          await filesForm([
            { name: "1.jpg", bytes },
            { name: "2.jpg", bytes },
          ]),
        )
      ).status,
    ).toBe(201);
    const limited = await post(cookies.parent, kid.id, await filesForm([{ name: "3.jpg", bytes }]));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await limited.json()).errors.message).toMatch(/as many photos as you may in an hour \(52\)/);
    expect(tempFiles()).toEqual([]);
  });
});
