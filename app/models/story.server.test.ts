import { describe, expect, it } from "vitest";
import { args, cookieFor, makeUser, req } from "../../tests/helpers";
import { db } from "~/lib/db.server";
import { agePeriod, ageOfMonth, monthPeriod } from "~/lib/dates";
import { loader as timelineLoader } from "~/routes/kid-timeline";
import { loader as milestonesLoader } from "~/routes/kid-milestones";
import { createKid } from "./kids.server";
import { decodeCursor } from "./moment-cursors.server";
import { listMilestones, momentsInPeriod, timelineMonths } from "./story.server";
import { befriend } from "./kids-test-helpers.server";

// A kid's milestones and timeline by age (docs/decisions/0028-moment-dates-and-feed.md).

async function setup() {
  const owner = await makeUser();
  const friend = await makeUser();
  const stranger = await makeUser();
  await befriend(owner.id, friend.id);
  const made = await createKid(owner.id, { name: "Elsa", birth_date: "2020-03-15", relationship: "Mom" }, null);
  if (!made.ok) throw new Error("setup");
  const kid = made.kid;
  const add = async (title: string, taken_on: string, milestone: string | null = null) => {
    const at = `${taken_on}T10:00:00.000Z`;
    await db()("daily_logs").insert({
      kid_id: kid.id,
      title,
      content: "x",
      taken_on,
      milestone,
      created_at: at,
      updated_at: at,
    });
  };
  await add("Bump", "2020-01-10");
  await add("Smile", "2020-05-01", "First smile");
  await add("Steps", "2021-04-02", "First steps");
  await add("Tooth", "2020-11-20", "First tooth");
  await add("Cake", "2021-03-15");
  await add("Swim", "2022-07-07", "First swim");
  for (let d = 1; d <= 25; d++) await add(`June ${d}`, `2021-06-${String(d).padStart(2, "0")}`);
  return { owner, friend, stranger, kid };
}

describe("a kid's story", () => {
  it("lists the milestones oldest first, to the owner and friends only", async () => {
    const { owner, friend, stranger, kid } = await setup();
    const list = await listMilestones(friend.id, kid.id);
    expect(list.ok && list.moments.map((m) => [m.title, m.milestone, m.taken_on])).toEqual([
      ["Smile", "First smile", "2020-05-01"],
      ["Tooth", "First tooth", "2020-11-20"],
      ["Steps", "First steps", "2021-04-02"],
      ["Swim", "First swim", "2022-07-07"],
    ]);
    expect(list).toMatchObject({ isOwner: false, isParent: false }); // a friend is not told how to mark one
    expect(await listMilestones(owner.id, kid.id)).toMatchObject({ ok: true, isOwner: true, isParent: true });
    expect(await listMilestones(stranger.id, kid.id)).toMatchObject({ ok: false, kind: "forbidden", hidden: true });
    const page = await milestonesLoader(
      args(req(`/kids/${kid.id}/milestones`, { cookie: await cookieFor(owner) }), { kidId: String(kid.id) }) as never,
    );
    expect(page.moments.map((m) => m.date.age)).toEqual([
      "Elsa was 1 month",
      "Elsa was 8 months",
      "Elsa was 1 year, 0 months",
      "Elsa was 2 years, 3 months",
    ]);
  });

  it("groups the months by year of age and pages inside a period with the cursor", async () => {
    const { owner, friend, stranger, kid } = await setup();
    const months = await timelineMonths(owner.id, kid.id);
    expect(months.ok && months.months).toEqual([
      { month: "2020-01", count: 1 },
      { month: "2020-05", count: 1 },
      { month: "2020-11", count: 1 },
      { month: "2021-03", count: 1 },
      { month: "2021-04", count: 1 },
      { month: "2021-06", count: 25 },
      { month: "2022-07", count: 1 },
    ]);
    expect(await timelineMonths(stranger.id, kid.id)).toMatchObject({ ok: false, kind: "forbidden" });
    const cookie = await cookieFor(friend);
    const load = (query: string) =>
      timelineLoader(args(req(`/kids/${kid.id}/timeline${query}`, { cookie }), { kidId: String(kid.id) }) as never);
    const index = await load("");
    expect(index.index.map((a) => [a.heading, a.months.map((m) => m.month)])).toEqual([
      ["Before birth", ["2020-01"]],
      ["Age 0", ["2020-05", "2020-11"]],
      ["Age 1", ["2021-03", "2021-04", "2021-06"]],
      ["Age 2", ["2022-07"]],
    ]);
    expect(index.moments).toEqual([]);
    const age1 = await load("?age=1");
    expect(age1.periodLabel).toBe("Age 1");
    expect(age1.moments).toHaveLength(20);
    expect(age1.moments[0]!.title).toBe("June 25");
    const rest = await load(`?age=1&before=${encodeURIComponent(age1.next!)}`);
    expect(rest.moments.map((m) => m.title)).toEqual([
      "June 5",
      "June 4",
      "June 3",
      "June 2",
      "June 1",
      "Steps",
      "Cake",
    ]);
    expect(rest.next).toBeNull();
    const march = await load("?month=2021-03");
    expect(march.moments.map((m) => m.title)).toEqual(["Cake"]);
    for (const bad of ["?age=x", "?age=999", "?month=2021-13", "?month=March", "?age=1&before=zzz"]) {
      await expect(load(bad)).rejects.toMatchObject({ init: { status: 400 } });
    }
    // the model: a period is [from, to), paged newest first
    const p = await momentsInPeriod(owner.id, kid.id, monthPeriod("2021-06")!, { limit: 10 });
    const p2 = await momentsInPeriod(owner.id, kid.id, monthPeriod("2021-06")!, {
      limit: 10,
      before: decodeCursor(p.next!),
    });
    expect([...p.moments, ...p2.moments].map((m) => m.title).slice(8, 12)).toEqual([
      "June 17",
      "June 16",
      "June 15",
      "June 14",
    ]);
  });

  it("computes periods of age and months on the calendar", () => {
    expect(agePeriod("2020-02-29", 0)).toEqual({ from: "2020-02-29", to: "2021-02-28" });
    expect(agePeriod("2020-02-29", -1)).toEqual({ from: "2019-02-28", to: "2020-02-29" });
    expect(agePeriod("2020-02-29", -2)).toBeNull();
    expect(monthPeriod("2021-12")).toEqual({ from: "2021-12-01", to: "2022-01-01" });
    expect(ageOfMonth("2020-03-15", "2020-02")).toBe(-1);
    expect(ageOfMonth("2020-03-15", "2020-03")).toBe(0);
    expect(ageOfMonth("2020-03-15", "2021-03")).toBe(1);
  });
});
