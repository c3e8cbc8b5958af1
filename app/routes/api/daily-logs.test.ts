import { describe, expect, it } from "vitest";
import * as list from "./kids-daily-logs";
import * as create from "./kids-daily-logs-new";
import * as one from "./daily-logs-id";
import { args, req } from "../../../tests/helpers";
import { createKid } from "~/models/kids.server";
import { createMoment } from "~/models/moment-changes.server";
import { insertMoments, jpeg, jpegUpload } from "~/models/kids-test-helpers.server";
import { form, LOG_SHAPE, PARENT_SHAPE, setup } from "../../../tests/kit/api-moments";

// The moments API of a kid: listing and posting (one moment by its id: daily-logs-id.test.ts).

describe("401 for every daily_logs call without a session", () => {
  it("answers 401 (C) on every method", async () => {
    const cases: [typeof list.loader, string, string, Record<string, string>][] = [
      [list.loader, "/api/kids/1/daily_logs", "GET", { kidId: "1" }],
      [create.action, "/api/kids/1/daily_logs/new", "POST", { kidId: "1" }],
      [one.loader, "/api/daily_logs/1", "GET", { id: "1" }],
      [one.action, "/api/daily_logs/x", "PUT", { id: "x" }],
      [one.action, "/api/daily_logs/1", "DELETE", { id: "1" }],
    ];
    for (const [fn, url, method, params] of cases) {
      const res = await fn(args(req(url, { method }), params));
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ errors: { message: "Unauthorized" } });
    }
  });
});

describe("GET /api/kids/{kidId}/daily_logs", () => {
  it("lists every moment newest first, to the owner and a friend; 403 to a stranger; 404 for unknown kids", async () => {
    const { owner, kid, moment, cookies } = await setup();
    const second = await createMoment(owner.id, kid.id, { title: "Later", content: "Newer" }, await jpegUpload());
    if (!second.ok) throw new Error("setup");
    const get = (cookie: string, kidId: string, search = "") =>
      list.loader(args(req(`/api/kids/${kidId}/daily_logs${search}`, { cookie }), { kidId }));
    for (const cookie of [cookies.owner, cookies.friend]) {
      const res = await get(cookie, String(kid.id));
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toEqual({
        daily_logs: [expect.objectContaining(LOG_SHAPE), expect.objectContaining(LOG_SHAPE)],
        next: null,
      });
      expect(body.daily_logs.map((l: { id: number }) => l.id)).toEqual([second.moment.id, moment.id]);
      const keys = [
        "content",
        "created_at",
        "id",
        "image_url",
        "kid_id",
        "milestone",
        "photos",
        "posted_by",
        "taken_on",
        "title",
        "videos",
      ];
      // the audience only to the kid's owner (and co-parents)
      expect(Object.keys(body.daily_logs[0]).sort()).toEqual(cookie === cookies.owner ? ["audience", ...keys] : keys);
      expect(body.daily_logs[0].posted_by).toBe(owner.id);
    }
    const hidden = await get(cookies.stranger, String(kid.id));
    expect(hidden.status).toBe(403);
    expect(await hidden.json()).toEqual({ errors: { message: "You are not authorized" } });
    for (const id of ["999999", "zero"]) {
      const res = await get(cookies.owner, id);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ errors: { message: "Kid not found" } });
    }
  });

  it("pages with ?limit=N&before=<cursor> and answers next", async () => {
    const { owner, cookies } = await setup();
    const made = await createKid(owner.id, { name: "Leo", birth_date: "2021-01-01", relationship: "Dad" }, null);
    if (!made.ok) throw new Error("setup");
    await insertMoments(made.kid.id, 7);
    const get = (search: string) =>
      list.loader(
        args(req(`/api/kids/${made.kid.id}/daily_logs${search}`, { cookie: cookies.owner }), {
          kidId: String(made.kid.id),
        }),
      );
    const titles: string[] = [];
    let search = "?limit=3";
    for (let i = 0; i < 5; i++) {
      const body = await (await get(search)).json();
      titles.push(...body.daily_logs.map((l: { title: string }) => l.title));
      if (!body.next) break;
      expect(typeof body.next).toBe("string");
      search = `?limit=3&before=${encodeURIComponent(body.next)}`;
    }
    expect(titles).toEqual(["Moment 7", "Moment 6", "Moment 5", "Moment 4", "Moment 3", "Moment 2", "Moment 1"]);
    // moments without photos serialize image_url null
    expect((await (await get("?limit=1")).json()).daily_logs[0].image_url).toBeNull();
  });

  it("400 (C) for a bad limit or cursor, but only after 404 and 403", async () => {
    const { kid, cookies } = await setup();
    const get = (cookie: string, kidId: string, search: string) =>
      list.loader(args(req(`/api/kids/${kidId}/daily_logs${search}`, { cookie }), { kidId }));
    for (const search of [
      "?limit=0",
      "?limit=abc",
      "?before=nonsense!",
      "?limit=2&before=" + Buffer.from("x_1").toString("base64url"),
    ]) {
      const res = await get(cookies.owner, String(kid.id), search);
      expect(res.status).toBe(400);
      expect(Object.keys((await res.json()).errors)).toEqual(["message"]);
    }
    expect((await get(cookies.stranger, String(kid.id), "?limit=0")).status).toBe(403);
    expect((await get(cookies.owner, "999999", "?limit=0")).status).toBe(404);
  });
});

describe("POST /api/kids/{kidId}/daily_logs/new", () => {
  it("creates a moment: 201 DailyLog", async () => {
    const { kid, cookies } = await setup();
    const res = await create.action(
      args(
        req(`/api/kids/${kid.id}/daily_logs/new`, {
          cookie: cookies.owner,
          form: form({ title: " Snow ", content: "Eleven flakes" }, await jpeg()),
        }),
        { kidId: String(kid.id) },
      ),
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ ...PARENT_SHAPE, kid_id: kid.id, title: "Snow", content: "Eleven flakes" });
  });

  it("takes taken_on and milestone on create and update, with field errors for bad ones", async () => {
    const { kid, cookies } = await setup();
    const post = (fields: Record<string, string>) =>
      create.action(
        args(req(`/api/kids/${kid.id}/daily_logs/new`, { cookie: cookies.owner, form: form(fields, undefined) }), {
          kidId: String(kid.id),
        }),
      );
    const withPhoto = async (fields: Record<string, string>) =>
      create.action(
        args(req(`/api/kids/${kid.id}/daily_logs/new`, { cookie: cookies.owner, form: form(fields, await jpeg()) }), {
          kidId: String(kid.id),
        }),
      );
    const res = await withPhoto({
      title: "Steps",
      content: "Three!",
      taken_on: "2020-07-01",
      milestone: "First steps",
    });
    expect(res.status).toBe(201);
    const created = await res.json();
    expect(created).toEqual({
      ...PARENT_SHAPE,
      kid_id: kid.id,
      title: "Steps",
      content: "Three!",
      taken_on: "2020-07-01",
      milestone: "First steps",
    });
    const other = await withPhoto({
      title: "Swim",
      content: "Splash",
      milestone: "Other",
      milestone_label: "First swim",
    });
    expect(await other.json()).toMatchObject({ milestone: "First swim" });
    const bad = await post({ title: "t", content: "c", taken_on: "2020-02-30", milestone: "Other" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      errors: {
        taken_on: ["Date must be a real date, for example 2024-06-14"],
        milestone_label: ["Milestone label is required when the milestone is Other"],
        image: ["Image is required"],
      },
    });
    const future = await withPhoto({ title: "t", content: "c", taken_on: "2999-01-01" });
    expect(future.status).toBe(400);
    expect(await future.json()).toEqual({ errors: { taken_on: ["Date can not be in the future"] } });

    const put = (fields: Record<string, string>) =>
      one.action(
        args(req(`/api/daily_logs/${created.id}`, { method: "PUT", cookie: cookies.owner, form: form(fields) }), {
          id: String(created.id),
        }),
      );
    const kept = await put({ title: "Steps", content: "Four!" });
    expect(await kept.json()).toMatchObject({ content: "Four!", taken_on: "2020-07-01", milestone: "First steps" });
    const cleared = await put({ title: "Steps", content: "Four!", milestone: "none", taken_on: "2020-07-02" });
    expect(await cleared.json()).toMatchObject({ taken_on: "2020-07-02", milestone: null });
  });

  it("404 → 403 → 400 (image required, spec messages)", async () => {
    const { kid, cookies } = await setup();
    const post = (cookie: string, kidId: string, body: FormData) =>
      create.action(args(req(`/api/kids/${kidId}/daily_logs/new`, { cookie, form: body }), { kidId }));
    const notFound = await post(cookies.owner, "999999", form({}));
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ errors: { message: "Kid not found" } });
    for (const cookie of [cookies.friend, cookies.stranger]) {
      const res = await post(cookie, String(kid.id), form({ title: "t", content: "c" }, await jpeg()));
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ errors: { message: "You are not authorized" } });
    }
    const invalid = await post(cookies.owner, String(kid.id), form({ image: "null" }));
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({
      errors: { title: ["Title is required"], content: ["Content is required"], image: ["Image is required"] },
    });
    const long = await post(
      cookies.owner,
      String(kid.id),
      form({ title: "t".repeat(51), content: "c".repeat(2001) }, await jpeg()),
    );
    expect(await long.json()).toEqual({
      errors: {
        title: ["Title can not be more than 50 characters"],
        content: ["Content can not be more than 2000 characters"],
      },
    });
  });
});
