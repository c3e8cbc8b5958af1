import { describe, expect, it } from "vitest";
import { countQueries, makeUser } from "../../tests/helpers";
import { db } from "~/lib/db.server";
import { createKid } from "./kids.server";
import { photoNeighbours } from "./moment-photos.server";
import { viewMoment } from "./moments.server";
import { befriend, insertMoments } from "./kids-test-helpers.server";

// The photo viewer's previous/next across a kid's moments (docs/decisions/0030-*): the kid page's
// order (newest first), only moments the viewer may see, only moments with a photo or a clip to
// view, two queries.

async function setup() {
  const owner = await makeUser();
  const friend = await makeUser();
  await befriend(owner.id, friend.id);
  const made = await createKid(owner.id, { name: "Elsa", birth_date: "2020-01-01", relationship: "Mom" }, null);
  if (!made.ok) throw new Error("setup");
  // created one second apart: the kid's page shows m5, m4, m3, m2, m1
  const [m1, m2, m3, m4, m5] = await insertMoments(made.kid.id, 5);
  await db()("daily_logs").whereIn("id", [m1!, m3!, m4!, m5!]).update({ photo_count: 2 });
  await db()("daily_logs").where("id", m4!).update({ audience: "family" }); // the friend is not in the Family circle
  return { owner, friend, ids: [m1!, m2!, m3!, m4!, m5!] };
}

async function neighbours(viewerId: number, momentId: number) {
  const view = await viewMoment(viewerId, momentId);
  if (!view.ok) throw new Error("view");
  const around = await photoNeighbours(viewerId, view.moment);
  return {
    previous: around.previous?.momentId ?? null,
    next: around.next?.momentId ?? null,
    count: around.previous?.itemCount,
  };
}

describe("the photo viewer's neighbouring moments", () => {
  it("previous is the moment above on the kid's page, next the one below; moments without a photo are skipped", async () => {
    const { owner, ids } = await setup();
    const [m1, , m3, m4, m5] = ids;
    expect(await neighbours(owner.id, m3!)).toEqual({ previous: m4, next: m1, count: 2 });
    expect(await neighbours(owner.id, m5!)).toEqual({ previous: null, next: m4, count: undefined });
    expect(await neighbours(owner.id, m1!)).toEqual({ previous: m3, next: null, count: 2 });
  });

  it("a moment of clips is a step too, counting its clips but not one that failed", async () => {
    const { owner, ids } = await setup();
    const [m1, m2, m3] = ids;
    const clip = (n: number, status: string) => ({
      daily_log_id: m2!,
      position: n,
      description: `Clip ${n}`,
      status,
      key: `viewer-clip-${m2}-${n}`,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
    });
    await db()("videos").insert([clip(0, "failed")]);
    await db()("daily_logs").where("id", m2!).update({ video_count: 1 });
    // its only clip failed: nothing to view there
    expect(await neighbours(owner.id, m1!)).toEqual({ previous: m3, next: null, count: 2 });
    await db()("videos").insert([clip(1, "processing"), clip(2, "ready")]);
    await db()("daily_logs").where("id", m2!).update({ video_count: 3 });
    expect(await neighbours(owner.id, m1!)).toEqual({ previous: m2, next: null, count: 2 });
    expect(await neighbours(owner.id, m3!)).toMatchObject({ next: m2 });
    await db()("daily_logs").where("id", m2!).update({ photo_count: 1 });
    expect((await neighbours(owner.id, m1!)).count).toBe(3);
  });

  it("a friend skips the moment hidden from them by its audience", async () => {
    const { friend, ids } = await setup();
    const [m1, , m3, , m5] = ids;
    expect(await neighbours(friend.id, m3!)).toEqual({ previous: m5, next: m1, count: 2 });
    expect(await neighbours(friend.id, m5!)).toEqual({ previous: null, next: m3, count: undefined });
  });

  it("the moment's date comes before its creation", async () => {
    const { owner, ids } = await setup();
    const [m1, , m3, m4] = ids;
    // m1 taken later than all the others: it is the first on the kid's page now
    await db()("daily_logs").where("id", m1!).update({ taken_on: "2025-06-01" });
    expect(await neighbours(owner.id, m4!)).toMatchObject({ previous: ids[4], next: m3 });
    expect(await neighbours(owner.id, ids[4]!)).toMatchObject({ previous: m1 });
  });

  it("costs two queries however many moments the kid has", async () => {
    const { owner, ids } = await setup();
    const view = await viewMoment(owner.id, ids[2]!);
    if (!view.ok) throw new Error("view");
    expect(await countQueries(() => photoNeighbours(owner.id, view.moment))).toBe(2);
  });
});
