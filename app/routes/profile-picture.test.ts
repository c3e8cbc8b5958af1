import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import { PICTURE_MESSAGES, PictureSchema } from "~/forms/profile-picture";
import {
  IMAGE_MESSAGES,
  MAX_IMAGE_BYTES as PICTURE_MAX_BYTES,
  MULTIPART_MESSAGES,
  UPLOAD_LIMITS,
} from "~/images/limits";
import { countImageRows, listAllUploads, makeImage } from "~/images/test-fixtures.server";
import { getUserById, type User } from "~/models/users.server";
import { action, loader, middleware } from "./profile-picture";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";

// /profile/picture: the forms' action without JavaScript (redirect or the page with errors) and
// the JSON answer for the upload sent by XMLHttpRequest (same handling, through the middleware).

type ActionData = {
  type: string;
  data: { result: { status: string; error: Record<string, string[]> } };
  init: { status: number };
};

function form(bytes: Buffer | null, intent: string, name = "photo.jpg", type = "image/jpeg"): FormData {
  const f = new FormData();
  f.set("intent", intent);
  f.set("image", bytes ? new Blob([new Uint8Array(bytes)], { type }) : new Blob([]), bytes ? name : "");
  return f;
}

async function post(user: User | null, body: FormData | Record<string, string>, headers: Record<string, string> = {}) {
  const cookie = user ? await cookieFor(user) : undefined;
  return req("/profile/picture", { method: "POST", cookie, form: body, headers });
}

/** Runs the route's middleware as React Router would: `next` renders the page (not wanted here). */
async function viaMiddleware(request: Request): Promise<{ response: Response | undefined; nextCalled: boolean }> {
  let nextCalled = false;
  const next = async () => {
    nextCalled = true;
    return new Response("page");
  };
  const response = (await middleware[0]!(args(request) as never, next as never)) as Response | undefined;
  return { response, nextCalled };
}

describe("the page action (no JavaScript)", () => {
  it("upload: redirects to /my-kids-list and the user has the picture", async () => {
    const user = await makeUser();
    const res = (await action(args(await post(user, form(await makeImage("jpeg", 640, 480), "upload"))))) as Response;
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/my-kids-list");
    expect((await getUserById(user.id))?.photo?.widths).toEqual([160, 320, 640]);
  });

  it("update replaces the picture; delete (the confirm's urlencoded form) removes it", async () => {
    const user = await makeUser();
    await action(args(await post(user, form(await makeImage("jpeg", 300, 300), "upload"))));
    const first = (await getUserById(user.id))!.photo!;
    const res = (await action(
      args(await post(user, form(await makeImage("png", 400, 300), "update", "x.png", "image/png"))),
    )) as Response;
    expect(res.status).toBe(302);
    const second = (await getUserById(user.id))!.photo!;
    expect(second.key).not.toBe(first.key);
    expect((await listAllUploads()).some((f) => f.startsWith(first.key))).toBe(false);

    const del = (await action(args(await post(user, { intent: "delete" })))) as Response;
    expect(del.status).toBe(302);
    expect(del.headers.get("Location")).toBe("/my-kids-list");
    expect((await getUserById(user.id))?.photo).toBeNull();
    expect((await listAllUploads()).some((f) => f.startsWith(second.key))).toBe(false);
  });

  it("no file: 400 with 'Image is required' for the page to show; nothing stored", async () => {
    const user = await makeUser();
    const files = await listAllUploads();
    const rows = await countImageRows();
    const out = (await action(args(await post(user, form(null, "upload"))))) as unknown as ActionData;
    expect(out.init.status).toBe(400);
    expect(out.data.result.status).toBe("error");
    expect(out.data.result.error.image).toEqual(["Image is required"]);
    expect(await listAllUploads()).toEqual(files);
    expect(await countImageRows()).toBe(rows);
  });

  it("not an image: 400 with the image module's message; nothing stored", async () => {
    const user = await makeUser();
    const files = await listAllUploads();
    const out = (await action(
      args(await post(user, form(Buffer.from("hello"), "upload", "notes.jpg"))),
    )) as unknown as ActionData;
    expect(out.init.status).toBe(400);
    expect(out.data.result.error.image).toEqual(["Only image files are accepted."]);
    expect(await listAllUploads()).toEqual(files);
    expect((await getUserById(user.id))?.photo).toBeNull();
  });

  it("signed out: to the log-in page", async () => {
    const res = await action(args(await post(null, form(await makeImage("jpeg", 200, 200), "upload")))).catch(
      (r: Response) => r,
    );
    expect((res as Response).status).toBe(302);
    expect((res as Response).headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
    const page = await loader(args(req("/profile/picture"))).catch((r: Response) => r);
    expect((page as Response).headers.get("Location")).toMatch(/^\/login\?redirectTo=%2Fprofile%2Fpicture$/);
  });

  it("the page's loader hands over the current picture", async () => {
    const user = await makeUser();
    expect(await loader(args(req("/profile/picture", { cookie: await cookieFor(user) })))).toEqual({ photo: null });
  });
});

describe("the upload sent by XMLHttpRequest (JSON)", () => {
  const xhr = { "X-Picture-Upload": "1", Accept: "application/json" };

  it("success: 200 {ok, redirectTo}; the picture is set", async () => {
    const user = await makeUser();
    const { response, nextCalled } = await viaMiddleware(
      await post(user, form(await makeImage("webp", 500, 500), "upload"), xhr),
    );
    expect(nextCalled).toBe(false);
    expect(response!.status).toBe(200);
    expect(response!.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await response!.json()).toEqual({ ok: true, redirectTo: "/my-kids-list" });
    expect((await getUserById(user.id))?.photo).not.toBeNull();
  });

  it("errors: 400 with the conform result ('Image is required', not an image)", async () => {
    const user = await makeUser();
    const none = await viaMiddleware(await post(user, form(null, "upload"), xhr));
    expect(none.response!.status).toBe(400);
    expect((await none.response!.json()).result.error.image).toEqual(["Image is required"]);
    const bad = await viaMiddleware(
      await post(user, form(Buffer.from("%PDF-1.7"), "upload", "x.pdf", "application/pdf"), xhr),
    );
    expect(bad.response!.status).toBe(400);
    expect((await bad.response!.json()).result.error.image).toEqual(["Only image files are accepted."]);
    expect((await getUserById(user.id))?.photo).toBeNull();
  });

  it("signed out: 401 JSON; without the header the page is rendered as usual", async () => {
    const out = await viaMiddleware(await post(null, form(await makeImage("jpeg", 200, 200), "upload"), xhr));
    expect(out.response!.status).toBe(401);
    const user = await makeUser();
    const plain = await viaMiddleware(await post(user, form(await makeImage("jpeg", 200, 200), "upload")));
    expect(plain.nextCalled).toBe(true);
    const get = await viaMiddleware(req("/profile/picture", { headers: xhr }));
    expect(get.nextCalled).toBe(true);
  });
});

describe("the form's schema (what the browser checks before sending)", () => {
  const check = (image: unknown) => {
    const fd = new FormData();
    fd.set("intent", "upload");
    if (image !== undefined) fd.set("image", image as Blob);
    const submission = parseWithZod(fd, { schema: PictureSchema });
    return { status: submission.status, error: submission.status === "error" ? submission.error : undefined };
  };

  it("agrees with the image module's limit and messages", () => {
    expect(PICTURE_MAX_BYTES).toBe(UPLOAD_LIMITS.maxFileBytes);
    expect(PICTURE_MESSAGES.tooBig).toBe(MULTIPART_MESSAGES.imageTooBig);
    expect(PICTURE_MESSAGES.notAnImage).toBe(IMAGE_MESSAGES.notAnImage);
  });

  it("required, too large, declared non-image; a chosen image passes", () => {
    expect(check(undefined).error?.image).toEqual(["Image is required"]);
    expect(check(new File([], "")).error?.image).toEqual(["Image is required"]);
    expect(
      check(new File([new Uint8Array(PICTURE_MAX_BYTES + 1)], "big.jpg", { type: "image/jpeg" })).error?.image,
    ).toEqual(["Image must be 15 MB or smaller."]);
    expect(check(new File(["hello"], "notes.txt", { type: "text/plain" })).error?.image).toEqual([
      "Only image files are accepted.",
    ]);
    expect(check(new File(["bytes"], "me.jpg", { type: "image/jpeg" })).status).toBe("success");
  });
});
