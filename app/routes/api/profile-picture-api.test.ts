import { beforeEach, describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { countImageRows, isStored, listAllUploads, makeImage } from "~/images/test-fixtures.server";
import { getUserById, type User } from "~/models/users.server";
import { loader as imageLoader } from "~/routes/images";
import * as me from "./auth";
import * as upload from "./users-upload-profile-picture";
import * as update from "./users-update-profile-picture";
import * as remove from "./users-delete-profile-picture";
import { args, cookieFor, makeUser, req } from "../../../tests/helpers";

// The three profile picture calls of docs/api.md, through their real loaders/actions, with
// real sessions, real images and the real image route.

const UPLOAD = "/api/users/upload-profile-picture";
const UPDATE = "/api/users/update-profile-picture";
const DELETE = "/api/users/delete-profile-picture";

function imageForm(
  bytes: Buffer | null,
  name = "photo.jpg",
  type = "image/jpeg",
  extra: Record<string, string> = {},
): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  if (bytes) form.set("image", new Blob([new Uint8Array(bytes)], { type }), name);
  return form;
}

function call(
  route: { action: (a: never) => Promise<Response> },
  path: string,
  method: string,
  cookie?: string,
  form?: FormData,
) {
  return route.action(args(req(path, { method, cookie, form })));
}

async function fetchImage(url: string, cookie: string): Promise<Response> {
  const [, , key, file] = url.split("/");
  return imageLoader(args(req(url, { cookie }), { key: key!, file: file! }));
}

/** The state a rejected call must leave untouched. */
async function snapshot(user: User) {
  return {
    files: await listAllUploads(),
    rows: await countImageRows(),
    photo: (await getUserById(user.id))?.photo ?? null,
  };
}

let user: User;
let cookie: string;
beforeEach(async () => {
  user = await makeUser();
  cookie = await cookieFor(user);
});

describe("signed out", () => {
  for (const [route, path, method] of [
    [upload, UPLOAD, "POST"],
    [update, UPDATE, "PUT"],
    [remove, DELETE, "DELETE"],
  ] as const) {
    it(`${method} ${path}: 401 (C) Unauthorized, nothing stored`, async () => {
      const files = await listAllUploads();
      const res = await call(
        route,
        path,
        method,
        undefined,
        method === "DELETE" ? undefined : imageForm(await makeImage("jpeg", 200, 200)),
      );
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ errors: { message: "Unauthorized" } });
      expect(await listAllUploads()).toEqual(files);
    });
  }
});

describe("POST /api/users/upload-profile-picture", () => {
  it("201 with the picture's URL, which the image route serves; /api/auth/ shows it", async () => {
    const res = await call(upload, UPLOAD, "POST", cookie, imageForm(await makeImage("jpeg", 1600, 1200)));
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(["user_image_url"]);
    expect(body.user_image_url).toMatch(/^\/images\/[A-Za-z0-9_-]{22,64}\/1280\.webp$/);
    const served = await fetchImage(body.user_image_url, cookie);
    expect(served.status).toBe(200);
    expect(served.headers.get("Content-Type")).toBe("image/webp");
    const who = await me.loader(args(req("/api/auth", { cookie })));
    expect((await who.json()).user_image_url).toBe(body.user_image_url);
  });

  it("replaces an existing picture: new URL, the old URL answers 404 and its files are gone", async () => {
    const first = await (
      await call(upload, UPLOAD, "POST", cookie, imageForm(await makeImage("png", 500, 500), "a.png", "image/png"))
    ).json();
    const oldKey = first.user_image_url.split("/")[2];
    const rows = await countImageRows();
    const res = await call(
      upload,
      UPLOAD,
      "POST",
      cookie,
      imageForm(await makeImage("webp", 600, 400), "b.webp", "image/webp"),
    );
    expect(res.status).toBe(201);
    const second = await res.json();
    expect(second.user_image_url).not.toBe(first.user_image_url);
    expect((await fetchImage(first.user_image_url, cookie)).status).toBe(404);
    expect((await fetchImage(second.user_image_url, cookie)).status).toBe(200);
    expect(await isStored(oldKey)).toBe(false);
    expect(await countImageRows()).toBe(rows);
  });

  it("400 (B) image required: no file, an empty file part, a text part named image, or a JSON body", async () => {
    const before = await snapshot(user);
    const empty = new FormData();
    empty.set("image", new Blob([]), "");
    const textPart = new FormData();
    textPart.set("image", "null");
    for (const form of [new FormData(), empty, textPart]) {
      const res = await call(upload, UPLOAD, "POST", cookie, form);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ errors: { image: ["Image is required"] } });
    }
    const json = await upload.action(args(req(UPLOAD, { method: "POST", cookie, json: { image: null } })));
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual({ errors: { image: ["Image is required"] } });
    expect(await snapshot(user)).toEqual(before);
  });

  it("400 (B) for files that are not images, whatever their name and declared type", async () => {
    const before = await snapshot(user);
    const cases: [Buffer, string, string][] = [
      [Buffer.from("definitely not a photo"), "photo.jpg", "image/jpeg"],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), "x.svg", "image/svg+xml"],
      [Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n"), "doc.pdf", "application/pdf"],
      [(await makeImage("jpeg", 400, 300)).subarray(0, 300), "cut.jpg", "image/jpeg"],
    ];
    for (const [bytes, name, type] of cases) {
      const res = await call(upload, UPLOAD, "POST", cookie, imageForm(bytes, name, type));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ errors: { image: ["Only image files are accepted."] } });
    }
    expect(await snapshot(user)).toEqual(before);
  });

  it("400 (B) for a file over 15 MB; nothing is kept", async () => {
    const before = await snapshot(user);
    const big = Buffer.alloc(15 * 1024 * 1024 + 1, 0x41);
    big[0] = 0xff;
    big[1] = 0xd8;
    big[2] = 0xff;
    const res = await call(upload, UPLOAD, "POST", cookie, imageForm(big));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: { image: ["Image must be 15 MB or smaller."] } });
    expect(await snapshot(user)).toEqual(before);
  });

  it("a failed replacement keeps the current picture", async () => {
    const first = await (
      await call(upload, UPLOAD, "POST", cookie, imageForm(await makeImage("jpeg", 300, 300)))
    ).json();
    const before = await snapshot(user);
    const res = await call(upload, UPLOAD, "POST", cookie, imageForm(Buffer.from("nope"), "x.png", "image/png"));
    expect(res.status).toBe(400);
    expect(await snapshot(user)).toEqual(before);
    expect((await fetchImage(first.user_image_url, cookie)).status).toBe(200);
  });

  it("other methods: 404 JSON", async () => {
    const res = await upload.loader(args(req(UPLOAD, { cookie })));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: { message: "Not found" } });
    const put = await call(upload, UPLOAD, "PUT", cookie, imageForm(await makeImage("jpeg", 200, 200)));
    expect(put.status).toBe(404);
  });
});

describe("PUT /api/users/update-profile-picture", () => {
  it("404 (C) profile picture not found when there is none, even for a bad file; nothing stored", async () => {
    const before = await snapshot(user);
    for (const form of [imageForm(await makeImage("jpeg", 300, 300)), imageForm(Buffer.from("text")), new FormData()]) {
      const res = await call(update, UPDATE, "PUT", cookie, form);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ errors: { message: "profile picture not found" } });
    }
    expect(await snapshot(user)).toEqual(before);
  });

  it("200 with the new URL; the old URL answers 404", async () => {
    const first = await (
      await call(upload, UPLOAD, "POST", cookie, imageForm(await makeImage("jpeg", 300, 300)))
    ).json();
    const res = await call(
      update,
      UPDATE,
      "PUT",
      await cookieFor(user),
      imageForm(await makeImage("gif", 320, 240), "x.gif", "image/gif"),
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(["user_image_url"]);
    expect(body.user_image_url).not.toBe(first.user_image_url);
    expect((await fetchImage(first.user_image_url, cookie)).status).toBe(404);
    expect((await fetchImage(body.user_image_url, cookie)).status).toBe(200);
  });

  it("400 (B) with a picture: required, not an image; the picture stays", async () => {
    await call(upload, UPLOAD, "POST", cookie, imageForm(await makeImage("jpeg", 300, 300)));
    const fresh = await cookieFor(user);
    const before = await snapshot(user);
    const none = await call(update, UPDATE, "PUT", fresh, new FormData());
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ errors: { image: ["Image is required"] } });
    const bad = await call(
      update,
      UPDATE,
      "PUT",
      fresh,
      imageForm(Buffer.from("<html></html>"), "x.html", "text/html"),
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ errors: { image: ["Only image files are accepted."] } });
    expect(await snapshot(user)).toEqual(before);
  });

  it("POST is not this path's method: 404", async () => {
    const res = await call(update, UPDATE, "POST", cookie, imageForm(await makeImage("jpeg", 200, 200)));
    expect(res.status).toBe(404);
  });
});

describe("DELETE /api/users/delete-profile-picture", () => {
  it("200 with the message; the picture's URL answers 404, its row and files are gone", async () => {
    const first = await (
      await call(upload, UPLOAD, "POST", cookie, imageForm(await makeImage("jpeg", 300, 300)))
    ).json();
    const key = first.user_image_url.split("/")[2];
    const res = await call(remove, DELETE, "DELETE", cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: "Your profile picture is deleted successfully" });
    expect((await getUserById(user.id))?.photo).toBeNull();
    expect((await fetchImage(first.user_image_url, cookie)).status).toBe(404);
    expect(await db()("images").where({ key }).first()).toBeUndefined();
    expect(await isStored(key)).toBe(false);
    const who = await me.loader(args(req("/api/auth", { cookie })));
    expect((await who.json()).user_image_url).toBeNull();
  });

  it("404 (C) profile picture not found when there is none", async () => {
    const res = await call(remove, DELETE, "DELETE", cookie);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: { message: "profile picture not found" } });
  });
});
