import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "../../../server/env.mjs";
import { uploadFromBuffer } from "~/images/temp-uploads.server";
import { createKid } from "~/models/kids.server";
import { createMoment } from "~/models/moment-changes.server";
import { exportZip } from "~/models/export-zip.server";
import { args, cookieFor, makeUser, req } from "../../../tests/helpers";
import * as apiImports from "./imports";
import * as kidImports from "./kids-imports";
import * as movePage from "../settings-import";
import * as resultPage from "../settings-import-result";
import { zipBytes } from "../../../tests/kit/zip";

// "Move in" through its adapters (docs/api.md "Imports", docs/decisions/0066-imports.md): POST
// /api/imports with the ZIP itself or multipart, a kid's imports with a Takeout ZIP, the page's
// form and its result page, and the hourly limit (429).

afterAll(() => {
  delete process.env.IMPORTS_PER_HOUR;
  resetEnvCache();
});

const jpeg = (color: string) =>
  sharp({ create: { width: 80, height: 60, channels: 3, background: color } })
    .jpeg()
    .toBuffer();

async function exportOf(userId: number): Promise<Buffer> {
  const made = await exportZip(userId);
  if (!made) throw new Error("no export");
  const chunks: Buffer[] = [];
  for await (const c of made.stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const zipPost = (path: string, cookie: string, body: Buffer) =>
  new Request(`http://localhost:3000${path}`, {
    method: "POST",
    headers: { Cookie: cookie, "Content-Type": "application/zip" },
    body: new Uint8Array(body),
  });

function multipart(fields: Record<string, string>, archive?: Buffer): FormData {
  const form = new FormData();
  if (archive) form.set("archive", new File([new Uint8Array(archive)], "move.zip", { type: "application/zip" }));
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
}

describe("Move in through the API and the page", () => {
  it("imports an export and a Takeout album, answers what came, and limits imports per hour", async () => {
    process.env.IMPORTS_PER_HOUR = "6";
    resetEnvCache();
    const there = await makeUser();
    const kid = await createKid(there.id, { name: "Lia", birth_date: "2021-02-03", relationship: "Mom" }, null);
    if (!kid.ok) throw new Error("kid");
    const moment = await createMoment(
      there.id,
      kid.kid.id,
      { title: "Snow", content: "First snow.", takenOn: "2023-01-10" },
      await uploadFromBuffer(await jpeg("#eef"), "snow.jpg"),
    );
    if (!moment.ok) throw new Error(moment.message);
    const exported = await exportOf(there.id);

    const me = await makeUser();
    const cookie = await cookieFor(me);
    // 1. the ZIP itself
    const first = await apiImports.action(args(zipPost("/api/imports", cookie, exported)));
    expect(first.status).toBe(201);
    expect(await first.json()).toEqual({
      import: {
        id: expect.any(Number),
        kind: "export",
        kids: 1,
        moments: 1,
        photos: 1,
        clips: 0,
        already_there: 0,
        skipped: [],
        others_likes_not_imported: 0,
        others_comments_not_imported: 0,
      },
    });
    // 2. multipart, again: nothing twice
    const again = await apiImports.action(args(req("/api/imports", { cookie, form: multipart({}, exported) })));
    expect(again.status).toBe(201);
    expect(await again.json()).toMatchObject({ import: { kids: 0, moments: 0, already_there: 2 } });

    // 3. a kid's imports take a Takeout album, not an export
    const mine = await createKid(me.id, { name: "Noa", birth_date: "2022-05-06", relationship: "Dad" }, null);
    if (!mine.ok) throw new Error("kid");
    const kidPath = `/api/kids/${mine.kid.id}/imports`;
    const params = { kidId: String(mine.kid.id) };
    const wrong = await kidImports.action(args(zipPost(kidPath, cookie, exported), params));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ errors: { archive: [expect.stringMatching(/Takeout album/)] } });
    // 4. a Takeout album: its drafts
    const orange = await jpeg("#f80");
    const album = await zipBytes((z) => {
      z.addBuffer(orange, "Takeout/Google Photos/Park/IMG_1.jpg");
      z.addBuffer(
        Buffer.from(JSON.stringify({ description: "Swings", photoTakenTime: { timestamp: "1717236000" } })),
        "Takeout/Google Photos/Park/IMG_1.jpg.json",
      );
    });
    const drafts = await kidImports.action(args(zipPost(kidPath, cookie, album), params));
    expect(drafts.status).toBe(201);
    const body = await drafts.json();
    expect(body.refused).toEqual([]);
    expect(body.drafts).toHaveLength(1);
    expect(body.drafts[0]).toMatchObject({ taken_on: "2024-06-01", content: "Swings" });

    // 5. the page: a Takeout album needs its kid; then the result page
    const noKid = await movePage.action(
      args(req("/settings/import", { cookie, form: multipart({ kid_id: "" }, album) })),
    );
    expect(noKid).toMatchObject({
      init: { status: 400 },
      data: { errors: { kid_id: [expect.stringMatching(/Choose the kid/)] } },
    });
    const posted = (await movePage.action(
      args(req("/settings/import", { cookie, form: multipart({ kid_id: String(mine.kid.id) }, album) })),
    )) as Response;
    expect(posted.status).toBe(303);
    const location = posted.headers.get("Location")!;
    const importId = /^\/settings\/import\/(\d+)$/.exec(location)?.[1];
    expect(importId).toBeDefined();
    const shown = (await resultPage.loader(args(req(location, { cookie }), { importId: importId! }))) as {
      record: { summary: { kind: string; photos: number; kidId: number } };
    };
    expect(shown.record.summary).toMatchObject({ kind: "takeout", photos: 1, kidId: mine.kid.id });

    // 6. past IMPORTS_PER_HOUR (6 in this test): 429 with the minutes to wait, nothing read
    const limited = await apiImports.action(args(zipPost("/api/imports", cookie, exported)));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(3500);
    expect(Number(limited.headers.get("Retry-After"))).toBeLessThanOrEqual(3600);
    expect(await limited.json()).toEqual({
      errors: { message: "You have imported as many archives as you may in an hour (6). Try again in 60 minutes." },
    });
  });
});
