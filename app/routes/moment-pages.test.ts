import { describe, expect, it } from "vitest";
import * as momentNew from "./moment-new";
import * as momentPage from "./moment";
import * as momentPhoto from "./moment-photo";
import * as momentUpdate from "./moment-update";
import { args, formErrorsOf, req, statusOf } from "../../tests/helpers";
import { db } from "~/lib/db.server";
import { createMoment } from "~/models/moment-changes.server";
import { canViewImage } from "~/models/access.server";
import { findImageByKey } from "~/images/storage.server";
import { jpeg, jpegUpload } from "~/models/kids-test-helpers.server";
import { multipart, people, thrown } from "../../tests/kit/kid-pages";

// The moment pages as a browser without JavaScript uses them (the kid pages: kids-pages.test.ts).

describe("moment pages", () => {
  it("adds a moment (owner only, image required) and goes to its page", async () => {
    const { kid, cookies } = await people();
    const load = (cookie: string) =>
      momentNew.loader(args(req(`/kids/${kid.id}/dailyLogs/new`, { cookie }), { kidId: String(kid.id) }));
    expect((await load(cookies.owner)).kid).toEqual({ id: kid.id, name: "Elsa", defaultAudience: "everyone" });
    expect((await thrown(() => load(cookies.friend))).status).toBe(403);
    expect((await thrown(() => load(cookies.stranger))).status).toBe(404);

    const post = (cookie: string, body: FormData) =>
      momentNew.action(args(req(`/kids/${kid.id}/dailyLogs/new`, { cookie, form: body }), { kidId: String(kid.id) }));
    expect(
      (await thrown(() => post(cookies.friend, multipart({ title: "t", content: "c" }, Buffer.from("x"))))).status,
    ).toBe(403);
    const invalid = await post(cookies.owner, multipart({}));
    expect(formErrorsOf(invalid)).toMatchObject({
      title: ["Title is required"],
      content: ["Content is required"],
      image: ["Image is required"],
    });
    const ok = await post(cookies.owner, multipart({ title: "Park", content: "Pigeons" }, await jpeg()));
    expect(statusOf(ok)).toBe(302);
    const location = (ok as Response).headers.get("Location")!;
    expect(location).toMatch(/^\/dailyLogs\/\d+$/);

    const id = location.split("/").pop()!;
    const detail = await momentPage.loader(args(req(location, { cookie: cookies.friend }), { momentId: id }));
    expect(detail).toMatchObject({
      moment: { title: "Park", content: "Pigeons" },
      kid: { id: kid.id, name: "Elsa" },
      canChange: false,
    });
    expect(
      (await thrown(() => momentPage.loader(args(req(location, { cookie: cookies.stranger }), { momentId: id }))))
        .status,
    ).toBe(404);
  });

  it("updates a moment (cannot wording) and deletes it from its page", async () => {
    const { owner, kid, cookies } = await people();
    const made = await createMoment(owner.id, kid.id, { title: "Old", content: "Old" }, await jpegUpload());
    if (!made.ok) throw new Error("setup");
    const id = String(made.moment.id);
    const data = await momentUpdate.loader(
      args(req(`/dailyLogs/${id}/update`, { cookie: cookies.owner }), { momentId: id }),
    );
    expect(data.moment).toMatchObject({
      title: "Old",
      content: "Old",
      photos: [{ key: made.moment.photo!.key, alt: "Old" }],
    });
    expect(
      (
        await thrown(() =>
          momentUpdate.loader(args(req(`/dailyLogs/${id}/update`, { cookie: cookies.friend }), { momentId: id })),
        )
      ).status,
    ).toBe(403);

    const post = (fields: Record<string, string>) =>
      momentUpdate.action(
        args(req(`/dailyLogs/${id}/update`, { cookie: cookies.owner, form: multipart(fields) }), { momentId: id }),
      );
    expect(formErrorsOf(await post({ title: "t".repeat(51), content: "" }))).toMatchObject({
      title: ["Title cannot be more than 50 characters"],
      content: ["Content is required"],
    });
    const ok = await post({ title: "New", content: "New" });
    expect((ok as Response).headers.get("Location")).toBe(`/dailyLogs/${id}`);

    const del = (cookie: string) =>
      momentPage.action(args(req(`/dailyLogs/${id}`, { cookie, form: { intent: "delete-moment" } }), { momentId: id }));
    expect((await thrown(() => del(cookies.friend))).status).toBe(403);
    const gone = await del(cookies.owner);
    expect(gone.headers.get("Location")).toBe(`/kids/${kid.id}/dailyLogs`);
    expect(
      (
        await thrown(() =>
          momentPage.loader(args(req(`/dailyLogs/${id}`, { cookie: cookies.owner }), { momentId: id })),
        )
      ).status,
    ).toBe(404);
  });

  it("several photos from one control: kept until their alt texts are given, a refused file named; reorder and remove", async () => {
    const { kid, cookies, owner, friend } = await people();
    const files = async (list: Buffer[], fields: Record<string, string>) => {
      const fd = new FormData();
      for (const [k, v] of Object.entries(fields)) fd.set(k, v);
      // like a browser: one part per file chosen in the one control, each with its name
      for (const [i, f] of list.entries())
        fd.append("image", new Blob([new Uint8Array(f)], { type: "image/jpeg" }), `p${i + 1}.jpg`);
      return fd;
    };
    const post = (body: FormData) =>
      momentNew.action(
        args(req(`/kids/${kid.id}/dailyLogs/new`, { cookie: cookies.owner, form: body }), { kidId: String(kid.id) }),
      );
    type Answer = {
      data: { pending: { id: number; key: string }[]; result: { initialValue: Record<string, string> } };
    };
    const [a, b, c] = [await jpeg(60, 40, "#c33"), await jpeg(61, 40, "#3c3"), await jpeg(62, 40, "#33c")];
    const zoo = () => db()("daily_logs").where({ kid_id: kid.id, title: "Zoo" }).count({ n: "*" }).first();

    // the third file is not an image: named on the control, the two photos kept, nothing saved
    const first = await post(
      await files([a, b, Buffer.from("not an image")], { title: "Zoo", content: "Lions", alt_1: "A lion" }),
    );
    expect(formErrorsOf(first)).toMatchObject({ image: ["p3.jpg: Only image files are accepted."] });
    const kept = (first as Answer).data.pending;
    expect(kept).toHaveLength(2);
    const [lionId, bearId] = kept.map((p) => p.id) as [number, number];
    // the first photo's alt text given beside the control is kept with it; the list is the form's
    expect((first as Answer).data.result.initialValue).toMatchObject({
      pending: `${lionId},${bearId}`,
      [`pending_${lionId}_alt`]: "A lion",
    });
    expect(await zoo()).toMatchObject({ n: 0 });
    // nobody but their sender sees them meanwhile
    const lionImage = (await findImageByKey(kept[0]!.key))!;
    expect(await canViewImage(owner.id, lionImage)).toBe(true);
    expect(await canViewImage(friend.id, lionImage)).toBe(false);

    // the next step: photo 2 still without alt text, refused on its field, nothing saved
    const next = (fields: Record<string, string>, more: Buffer[] = []) =>
      files(more, { title: "Zoo", content: "Lions", pending: `${lionId},${bearId}`, ...fields });
    const missing = await post(await next({ [`pending_${lionId}_alt`]: "A lion" }));
    expect(formErrorsOf(missing)).toMatchObject({
      [`pending_${bearId}_alt`]: [expect.stringContaining("alt text of photo 2")],
    });
    expect(await zoo()).toMatchObject({ n: 0 });

    // given, with one more photo chosen then (its alt text in slot 1): three photos, in that order
    const ok = await post(
      await next({ [`pending_${lionId}_alt`]: "A lion", [`pending_${bearId}_alt`]: "A bear", alt_1: "A seal" }, [c]),
    );
    const id = /\/dailyLogs\/(\d+)$/.exec((ok as Response).headers.get("Location") ?? "")![1]!;
    const view = await momentPage.loader(args(req(`/dailyLogs/${id}`, { cookie: cookies.owner }), { momentId: id }));
    expect(view.moment.photos.map((p: { alt: string; width: number }) => [p.alt, p.width])).toEqual([
      ["A lion", 60],
      ["A bear", 61],
      ["A seal", 62],
    ]);
    // taken: no longer pending, and the moment's audience decides who sees them
    expect(await db()("pending_photos").whereIn("image_id", [lionId, bearId]).count({ n: "*" }).first()).toMatchObject({
      n: 0,
    });
    expect(await canViewImage(friend.id, lionImage)).toBe(true);
    // photos a moment took cannot be named again
    const again = await post(await next({ [`pending_${lionId}_alt`]: "A lion", [`pending_${bearId}_alt`]: "A bear" }));
    expect(formErrorsOf(again)).toMatchObject({ image: ["Image is required"] });

    // update: the seal first, the lion removed, the bear's alt text changed
    const form = await momentUpdate.loader(
      args(req(`/dailyLogs/${id}/update`, { cookie: cookies.owner }), { momentId: id }),
    );
    const [lion, bear, seal] = form.moment.photos as { id: number }[];
    const update = new FormData();
    for (const [k, v] of Object.entries({
      title: "Zoo",
      content: "Lions",
      [`photo_${lion!.id}_position`]: "1",
      [`photo_${lion!.id}_alt`]: "A lion",
      [`photo_${lion!.id}_remove`]: "on",
      [`photo_${bear!.id}_position`]: "2",
      [`photo_${bear!.id}_alt`]: "A brown bear",
      [`photo_${seal!.id}_position`]: "1",
      [`photo_${seal!.id}_alt`]: "A seal",
    }))
      update.set(k, v);
    update.append("image", new Blob([]), "");
    const updated = await momentUpdate.action(
      args(req(`/dailyLogs/${id}/update`, { cookie: cookies.owner, form: update }), { momentId: id }),
    );
    expect((updated as Response).headers.get("Location")).toBe(`/dailyLogs/${id}`);
    const after = await momentPage.loader(args(req(`/dailyLogs/${id}`, { cookie: cookies.owner }), { momentId: id }));
    expect(after.moment.photos.map((p: { alt: string }) => p.alt)).toEqual(["A seal", "A brown bear"]);
  });
});

describe("Download original (docs/decisions/0063-full-size-originals.md)", () => {
  it("the moment's page and the viewer link each photo's full-size copy; an older photo without one, its largest size", async () => {
    const { kid, cookies } = await people();
    const made = await momentNew.action(
      args(
        req(`/kids/${kid.id}/dailyLogs/new`, {
          cookie: cookies.owner,
          form: multipart({ title: "Park", content: "Pigeons", taken_on: "2024-06-06" }, await jpeg(900, 600)),
        }),
        { kidId: String(kid.id) },
      ),
    );
    const location = (made as Response).headers.get("Location")!;
    const id = location.split("/").pop()!;
    const { key } = await db()("daily_logs")
      .join("images", "images.id", "daily_logs.image_id")
      .where("daily_logs.id", Number(id))
      .first("images.key");
    const moment = async () =>
      (await momentPage.loader(args(req(location, { cookie: cookies.friend }), { momentId: id }))) as {
        moment: { downloads: unknown[] };
      };
    const viewer = () =>
      momentPhoto.loader(args(req(`${location}/photos/1`, { cookie: cookies.friend }), { momentId: id, n: "1" }));

    const full = { href: `/images/${key}/original.jpg`, full: true, name: "2024-06-06 Elsa - Park.jpg" };
    expect((await moment()).moment.downloads).toEqual([full]);
    expect((await viewer()).item).toMatchObject({ kind: "photo", download: full });

    // a photo stored before full-size copies were kept
    await db()("images").where({ key }).update({ original_width: null, original_height: null });
    const older = { href: `/images/${key}/900.webp`, full: false, name: "2024-06-06 Elsa - Park.webp" };
    expect((await moment()).moment.downloads).toEqual([older]);
    expect((await viewer()).item).toMatchObject({ kind: "photo", download: older });
  });
});
