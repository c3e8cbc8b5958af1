import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { likeSubstring, normalizeSearchQuery, searchUsers, SEARCH_LIMIT } from "./user-search.server";
import { makeUser } from "../../tests/helpers";
import { storePhoto } from "../../tests/unit/friends-fixtures";

// Each test uses its own unusual name fragments, so users made by other tests never match.

describe("normalizeSearchQuery / likeSubstring", () => {
  it("trims, collapses whitespace, lower-cases; escapes LIKE's wildcards", () => {
    expect(normalizeSearchQuery("  Ann   LEE \t")).toBe("ann lee");
    expect(normalizeSearchQuery("   ")).toBe("");
    expect(normalizeSearchQuery(null)).toBe("");
    // control characters go (PostgreSQL refuses a NUL in text)
    expect(normalizeSearchQuery("An\u0000n\u001f")).toBe("ann");
    expect(likeSubstring("50%_a\\b")).toBe("%50\\%\\_a\\\\b%");
  });
});

describe("searchUsers", () => {
  it("blank is null; matches first, last and 'first last', case-insensitively and trimmed", async () => {
    const zara = await makeUser({ first_name: "Zarqueena", last_name: "Plimtoft" });
    const other = await makeUser({ first_name: "Ozarquo", last_name: "Vendel" });
    expect(await searchUsers("")).toBeNull();
    expect(await searchUsers("   ")).toBeNull();
    const ids = async (q: string) => (await searchUsers(q))!.map((h) => h.id);
    expect(await ids("zarqu")).toEqual([zara.id, other.id]); // Plimtoft before Vendel
    expect(await ids("ZARQU")).toEqual([zara.id, other.id]);
    expect(new Set(await ids("  ZARQU "))).toEqual(new Set([zara.id, other.id]));
    expect(await ids("plimtoft")).toEqual([zara.id]);
    expect(await ids("limto")).toEqual([zara.id]);
    expect(await ids("zarqueena plimtoft")).toEqual([zara.id]);
    expect(await ids("Queena   Plim")).toEqual([zara.id]); // across the space, inner spaces collapsed
    expect(await ids("plimtoft zarqueena")).toEqual([]);
    expect(await ids("zarqueenaplimtoft")).toEqual([]);
  });

  it("% and _ match literally, and so does a backslash", async () => {
    const pct = await makeUser({ first_name: "Per%cent", last_name: "Qwyxlo" });
    const und = await makeUser({ first_name: "Under_score", last_name: "Qwyxlo" });
    const plain = await makeUser({ first_name: "Perxcent", last_name: "Underxscore" });
    const slash = await makeUser({ first_name: "Back\\slash", last_name: "Qwyxlo" });
    const ids = async (q: string) => (await searchUsers(q))!.map((h) => h.id);
    expect(await ids("r%c")).toEqual([pct.id]);
    expect(await ids("r_s")).toEqual([und.id]);
    expect(await ids("%")).toContain(pct.id);
    expect(await ids("%")).not.toContain(plain.id);
    expect(await ids("_")).toContain(und.id);
    expect(await ids("_")).not.toContain(plain.id);
    expect(await ids("k\\s")).toEqual([slash.id]);
    expect(await ids("perxcent")).toEqual([plain.id]);
  });

  it("at most 20, ordered by last name, first name, id; the same answer every time", async () => {
    const made = [];
    for (let i = 0; i < 25; i++) {
      // last names in reverse order of creation, some ties broken by first name and by id
      const last = `Mubblo${String.fromCharCode(90 - Math.floor(i / 3))}`;
      const first = i % 3 === 2 ? "Aaa" : "Bbb";
      made.push(await makeUser({ first_name: first, last_name: last }));
    }
    const hits = (await searchUsers("mubblo"))!;
    expect(hits).toHaveLength(SEARCH_LIMIT);
    const expected = [...made]
      .sort(
        (x, y) =>
          x.last_name!.toLowerCase().localeCompare(y.last_name!.toLowerCase()) ||
          x.first_name!.toLowerCase().localeCompare(y.first_name!.toLowerCase()) ||
          x.id - y.id,
      )
      .slice(0, SEARCH_LIMIT)
      .map((u) => u.id);
    expect(hits.map((h) => h.id)).toEqual(expected);
    expect((await searchUsers("MUBBLO"))!.map((h) => h.id)).toEqual(expected);
  });

  it("a hit is id, names and photo only: no email, no username, no kids; oneself included", async () => {
    const me = await makeUser({ first_name: "Glorpina", last_name: "Trask" });
    const photo = await storePhoto("user", me.id);
    await db()("users").where({ id: me.id }).update({ image_id: photo.imageId });
    const [hit] = (await searchUsers("glorpina"))!;
    expect(Object.keys(hit!).sort()).toEqual(["first_name", "id", "last_name", "photo"]);
    expect(hit).toMatchObject({ id: me.id, first_name: "Glorpina", last_name: "Trask", photo: { key: photo.key } });
  });

  it("users without names (older sign-up page) only match through the name they have", async () => {
    const nameless = await makeUser({ first_name: null, last_name: null, username: "snorkwhistle" });
    expect(await searchUsers("snorkwhistle")).toEqual([]);
    expect(await searchUsers(" ")).toBeNull();
    expect(nameless.first_name).toBeNull();
  });

  it("a query longer than any name finds nobody without asking the database", async () => {
    expect(await searchUsers("x".repeat(200))).toEqual([]);
  });
});
