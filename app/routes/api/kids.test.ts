import { describe, expect, it } from "vitest";
import * as current from "./kids-current";
import * as kidsNew from "./kids-new";
import * as kidsId from "./kids-id";
import { args, cookieFor, makeUser, req } from "../../../tests/helpers";
import { isStored } from "~/images/test-fixtures.server";
import { db } from "~/lib/db.server";
import { createKid } from "~/models/kids.server";
import { createMoment } from "~/models/moment-changes.server";
import { befriend, insertLikeAndComment, jpeg, jpegUpload } from "~/models/kids-test-helpers.server";

const KID_SHAPE = {
  id: expect.any(Number),
  user_id: expect.any(Number),
  name: expect.any(String),
  birth_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
  relationship: expect.any(String),
  kid_image_url: null,
  co_parents: [],
};

async function multipart(fields: Record<string, string>, image?: Buffer | string) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  if (typeof image === "string") fd.set("image", image);
  else if (image) fd.set("image", new Blob([new Uint8Array(image)], { type: "image/jpeg" }), "kid.jpg");
  return fd;
}

async function setup() {
  const owner = await makeUser();
  const friend = await makeUser();
  const stranger = await makeUser();
  await befriend(owner.id, friend.id);
  const made = await createKid(owner.id, { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" }, null);
  if (!made.ok) throw new Error("setup");
  return {
    owner,
    friend,
    stranger,
    kid: made.kid,
    cookies: { owner: await cookieFor(owner), friend: await cookieFor(friend), stranger: await cookieFor(stranger) },
  };
}

describe("401 for every kids call without a session", () => {
  it("answers 401 (C) on every method, before anything else", async () => {
    const cases: [typeof current.loader, string, string, Record<string, string>][] = [
      [current.loader, "/api/kids/current", "GET", {}],
      [kidsNew.action, "/api/kids/new", "POST", {}],
      [kidsId.loader, "/api/kids/1", "GET", { id: "1" }],
      [kidsId.action, "/api/kids/abc", "PUT", { id: "abc" }],
      [kidsId.action, "/api/kids/1", "DELETE", { id: "1" }],
    ];
    for (const [fn, url, method, params] of cases) {
      const res = await fn(args(req(url, { method }), params));
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ errors: { message: "Unauthorized" } });
    }
  });
});

describe("GET /api/kids/current", () => {
  it("lists the caller's own kids in id order", async () => {
    const { owner, cookies } = await setup();
    await createKid(owner.id, { name: "Leo", birth_date: "2021-08-02", relationship: "Dad" }, await jpegUpload());
    const res = await current.loader(args(req("/api/kids/current", { cookie: cookies.owner })));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.kids.map((k: { name: string }) => k.name)).toEqual(["Elsa", "Leo"]);
    expect(body.kids[0]).toEqual({
      ...KID_SHAPE,
      user_id: owner.id,
      name: "Elsa",
      birth_date: "2019-03-14",
      relationship: "Mom",
    });
    expect(body.kids[1].kid_image_url).toMatch(/^\/images\/[A-Za-z0-9_-]+\/\d+\.webp$/);
    const friends = await current.loader(args(req("/api/kids/current", { cookie: cookies.friend })));
    expect(await friends.json()).toEqual({ kids: [] });
  });

  it("answers 404 JSON for a method the path does not have", async () => {
    const { cookies } = await setup();
    const res = await current.action(args(req("/api/kids/current", { method: "POST", cookie: cookies.owner })));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: { message: "Not found" } });
  });
});

describe("POST /api/kids/new", () => {
  it("creates a kid from multipart with a photo: 201 Kid", async () => {
    const { owner, cookies } = await setup();
    const form = await multipart({ name: " Mia ", birth_date: "2024-02-29", relationship: "Grandma" }, await jpeg());
    const res = await kidsNew.action(args(req("/api/kids/new", { cookie: cookies.owner, form })));
    expect(res.status).toBe(201);
    const kid = await res.json();
    expect(kid).toEqual({
      ...KID_SHAPE,
      user_id: owner.id,
      name: "Mia",
      birth_date: "2024-02-29",
      relationship: "Grandma",
      kid_image_url: expect.stringMatching(/^\/images\//),
    });
  });

  it("accepts JSON and ignores a text part named image", async () => {
    const { cookies } = await setup();
    const json = await kidsNew.action(
      args(
        req("/api/kids/new", {
          cookie: cookies.owner,
          json: { name: "Jay", birth_date: "2020-01-01", relationship: "Dad", image: "null" },
        }),
      ),
    );
    expect(json.status).toBe(201);
    expect((await json.json()).kid_image_url).toBeNull();
    const form = await multipart({ name: "Kay", birth_date: "2020-01-01", relationship: "Other" }, "null");
    const res = await kidsNew.action(args(req("/api/kids/new", { cookie: cookies.owner, form })));
    expect(res.status).toBe(201);
    expect((await res.json()).kid_image_url).toBeNull();
  });

  it("answers 400 (B) with the spec's messages", async () => {
    const { cookies } = await setup();
    const res = await kidsNew.action(args(req("/api/kids/new", { cookie: cookies.owner, form: await multipart({}) })));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errors: {
        name: ["Name is required"],
        birth_date: ["Birth date is required"],
        relationship: ["Please choose a relationship"],
      },
    });
    const bad = await kidsNew.action(
      args(
        req("/api/kids/new", {
          cookie: cookies.owner,
          json: { name: "x".repeat(51), birth_date: "2023-02-31", relationship: "Uncle" },
        }),
      ),
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      errors: {
        name: ["Name can not be more than 50 characters"],
        birth_date: ["February 2023 has only 28 days. Please choose a real date"],
        relationship: ["Please choose a relationship"],
      },
    });
    const future = await kidsNew.action(
      args(
        req("/api/kids/new", {
          cookie: cookies.owner,
          json: { name: "A", birth_date: "2999-01-01", relationship: "Mom" },
        }),
      ),
    );
    expect(await future.json()).toEqual({ errors: { birth_date: ["Birth date cannot be in the future"] } });
  });

  it("answers 400 (B) `image` for a file that is not an image, and stores nothing", async () => {
    const { owner, cookies } = await setup();
    const fd = await multipart({ name: "Zed", birth_date: "2020-01-01", relationship: "Mom" });
    fd.set("image", new Blob(["just text"], { type: "image/png" }), "fake.png");
    const res = await kidsNew.action(args(req("/api/kids/new", { cookie: cookies.owner, form: fd })));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: { image: ["Only image files are accepted."] } });
    expect(await db()("kids").where({ user_id: owner.id, name: "Zed" }).first()).toBeUndefined();
  });

  it("answers 400 (C) for a body that cannot be read", async () => {
    const { cookies } = await setup();
    const res = await kidsNew.action(
      args(
        req("/api/kids/new", {
          method: "POST",
          cookie: cookies.owner,
          headers: { "Content-Type": "application/json" },
        }),
      ),
    );
    // an empty JSON body is an empty object: field errors
    expect(res.status).toBe(400);
    const broken = new Request("http://localhost:3000/api/kids/new", {
      method: "POST",
      headers: { Cookie: cookies.owner, "Content-Type": "application/json" },
      body: "{not json",
    });
    const res2 = await kidsNew.action(args(broken));
    expect(res2.status).toBe(400);
    expect(await res2.json()).toEqual({ errors: { message: "The request body could not be read." } });
  });
});

describe("GET /api/kids/{id}", () => {
  it("answers the Kid to the owner and an accepted friend; 403 to others; 404 for unknown or bad ids", async () => {
    const { kid, cookies } = await setup();
    const get = (cookie: string, id: string) => kidsId.loader(args(req(`/api/kids/${id}`, { cookie }), { id }));
    const own = await get(cookies.owner, String(kid.id));
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({
      ...KID_SHAPE,
      id: kid.id,
      user_id: kid.user_id,
      name: "Elsa",
      birth_date: "2019-03-14",
      relationship: "Mom",
    });
    expect((await get(cookies.friend, String(kid.id))).status).toBe(200);
    const hidden = await get(cookies.stranger, String(kid.id));
    expect(hidden.status).toBe(403);
    expect(await hidden.json()).toEqual({ errors: { message: "You are not authorized" } });
    for (const id of ["999999", "0", "-1", "abc", "1.5"]) {
      const res = await get(cookies.owner, id);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ errors: { message: "Kid not found" } });
    }
  });
});

describe("PUT /api/kids/{id}", () => {
  it("updates the owner's kid and replaces the photo (old file deleted, new URL)", async () => {
    const { owner, cookies } = await setup();
    const made = await createKid(
      owner.id,
      { name: "Leo", birth_date: "2021-08-02", relationship: "Dad" },
      await jpegUpload(),
    );
    if (!made.ok) throw new Error("setup");
    const oldKey = made.kid.photo!.key;
    const form = await multipart({ name: "Leon", birth_date: "2021-08-03", relationship: "Mom" }, await jpeg(100, 80));
    const res = await kidsId.action(
      args(req(`/api/kids/${made.kid.id}`, { method: "PUT", cookie: cookies.owner, form }), {
        id: String(made.kid.id),
      }),
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ id: made.kid.id, name: "Leon", birth_date: "2021-08-03", relationship: "Mom" });
    expect(body.kid_image_url).not.toContain(oldKey);
    expect(await isStored(oldKey)).toBe(false);

    // without an image the photo stays
    const again = await kidsId.action(
      args(
        req(`/api/kids/${made.kid.id}`, {
          method: "PUT",
          cookie: cookies.owner,
          json: { name: "Leon", birth_date: "2021-08-03", relationship: "Mom" },
        }),
        { id: String(made.kid.id) },
      ),
    );
    expect((await again.json()).kid_image_url).toBe(body.kid_image_url);
  });

  it("404 → 403 → 400, in that order", async () => {
    const { kid, cookies } = await setup();
    const put = (cookie: string, id: string, json: unknown) =>
      kidsId.action(args(req(`/api/kids/${id}`, { method: "PUT", cookie, json }), { id }));
    const notFound = await put(cookies.owner, "999999", {});
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ errors: { message: "Kid not found" } });
    for (const cookie of [cookies.friend, cookies.stranger]) {
      const res = await put(cookie, String(kid.id), {}); // invalid too, but 403 comes first
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ errors: { message: "You are not authorized" } });
    }
    const invalid = await put(cookies.owner, String(kid.id), { name: "n".repeat(51), birth_date: "x" });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({
      errors: {
        name: ["Name cannot be more than 50 characters"],
        birth_date: ["Birth date must be a date written as YYYY-MM-DD"],
        relationship: ["Please choose a relationship"],
      },
    });
    const unchanged = await kidsId.loader(
      args(req(`/api/kids/${kid.id}`, { cookie: cookies.owner }), { id: String(kid.id) }),
    );
    expect((await unchanged.json()).name).toBe("Elsa");
  });
});

describe("DELETE /api/kids/{id}", () => {
  it("removes the kid with its moments, likes, comments and every photo file", async () => {
    const { owner, friend, cookies } = await setup();
    const made = await createKid(
      owner.id,
      { name: "Leo", birth_date: "2021-08-02", relationship: "Dad" },
      await jpegUpload(),
    );
    if (!made.ok) throw new Error("setup");
    const moment = await createMoment(owner.id, made.kid.id, { title: "t", content: "c" }, await jpegUpload());
    if (!moment.ok) throw new Error("setup");
    await insertLikeAndComment(moment.moment.id, friend.id);
    const keys = [made.kid.photo!.key, moment.moment.photo!.key];
    const del = (cookie: string, id: string) =>
      kidsId.action(args(req(`/api/kids/${id}`, { method: "DELETE", cookie }), { id }));

    expect((await del(cookies.friend, String(made.kid.id))).status).toBe(403);
    expect((await del(cookies.stranger, String(made.kid.id))).status).toBe(403);
    const ok = await del(cookies.owner, String(made.kid.id));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ message: "kid remove successfully" });
    expect(await db()("daily_logs").where("id", moment.moment.id).first()).toBeUndefined();
    expect(await db()("comments").where("daily_log_id", moment.moment.id).first()).toBeUndefined();
    expect(await db()("likes").where("daily_log_id", moment.moment.id).first()).toBeUndefined();
    for (const key of keys) expect(await isStored(key)).toBe(false);
    const gone = await del(cookies.owner, String(made.kid.id));
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ errors: { message: "Kid not found" } });
  });
});
