import { db, nowIso } from "./db.server";
import { hashPassword } from "./password.server";
import { normalizeEmail, normalizeUsername } from "~/models/users.server";

// Demo data that makes the product look alive. Every account here is flagged `is_demo`, so
// re-seeding replaces exactly these accounts (and everything that hangs off them) and never
// touches anyone else's. With DEMO off, demo accounts cannot log in.

type SeedUser = { key: string; email: string; username: string; first: string; last: string };

const USERS: SeedUser[] = [
  { key: "demo", email: "demo@aa.io", username: "Demo", first: "Demo", last: "User" },
  { key: "marnie", email: "marnie@aa.io", username: "marnie", first: "Marnie", last: "Keller" },
  { key: "bobbie", email: "bobbie@aa.io", username: "bobbie", first: "Bobbie", last: "Santos" },
  { key: "ana", email: "ana@aa.io", username: "ana_r", first: "Ana", last: "Ruiz" },
  { key: "tom", email: "tom@aa.io", username: "tommy", first: "Tom", last: "Baker" },
  { key: "lee", email: "lee@aa.io", username: "leeh", first: "Lee", last: "Huang" },
  { key: "priya", email: "priya@aa.io", username: "priya", first: "Priya", last: "Nair" },
  { key: "olu", email: "olu@aa.io", username: "olu", first: "Olu", last: "Adeyemi" },
];

type SeedKid = { owner: string; name: string; birth: string; relationship: string };
const KIDS: SeedKid[] = [
  { owner: "demo", name: "Elsa", birth: "2019-03-14", relationship: "Mom" },
  { owner: "demo", name: "Leo", birth: "2021-08-02", relationship: "Mom" },
  { owner: "demo", name: "Mia", birth: "2024-02-29", relationship: "Mom" },
  { owner: "marnie", name: "Noah", birth: "2018-11-20", relationship: "Dad" },
  { owner: "marnie", name: "Ava", birth: "2022-05-09", relationship: "Dad" },
  { owner: "bobbie", name: "Lucas", birth: "2020-01-17", relationship: "Grandma" },
  { owner: "bobbie", name: "Isla", birth: "2023-07-30", relationship: "Grandma" },
  { owner: "ana", name: "Mateo", birth: "2017-09-05", relationship: "Mom" },
  { owner: "tom", name: "Ruby", birth: "2021-12-24", relationship: "Grandpa" },
  { owner: "lee", name: "Kai", birth: "2019-06-11", relationship: "Dad" },
  { owner: "priya", name: "Anya", birth: "2020-10-01", relationship: "Mom" },
  { owner: "olu", name: "Tobi", birth: "2022-03-03", relationship: "Other" },
  { owner: "olu", name: "Zara", birth: "2024-09-15", relationship: "Other" },
];

const MOMENTS: [string, string][] = [
  ["First day at the park", "Chased every pigeon in sight and then fell asleep in the stroller before we even got home."],
  ["Pancake Sunday", "Flipped a pancake all by herself. Half of it landed on the floor, the other half was declared delicious."],
  ["Bath-time concert", "A full song about bubbles, with three verses and a chorus nobody else was allowed to sing."],
  ["New shoes", "Insisted on wearing them to bed. We compromised: shoes on the pillow, feet under the blanket."],
  ["Grandma's garden", "Picked a strawberry, inspected it for a long time, then gave it to the dog."],
  ["Rainy day fort", "Built a fort out of every cushion in the house and charged an entry fee of one hug."],
  ["Library card!", "Got a very own library card and checked out seven books about trucks."],
  ["Snow!", "The first snow of the year. Tried to catch every flake and count them. Got to eleven."],
  ["Beach day", "Buried dad up to the knees and decorated him with shells. A masterpiece."],
  ["Lost tooth", "The first wobbly tooth finally came out during dinner. The tooth fairy has been informed."],
];

const COMMENTS = [
  "This made my day!",
  "So sweet, thank you for sharing.",
  "Look at that smile!",
  "They grow up so fast.",
  "Adorable. Give them a hug from us!",
];

export async function seedDemo({ verbose = false }: { verbose?: boolean } = {}): Promise<{ imageKeys: string[] }> {
  const started = Date.now();
  const passwordHash = await hashPassword("password");
  const knex = db();
  const imageKeys: string[] = [];

  await knex.transaction(async (trx) => {
    const oldDemo = await trx("users").where("is_demo", true).pluck("id");
    if (oldDemo.length) {
      const keys = await trx("images").whereIn("owner_id", oldDemo).pluck("key");
      imageKeys.push(...keys);
      await trx("images").whereIn("owner_id", oldDemo).delete();
      await trx("users").whereIn("id", oldDemo).delete(); // cascades to everything they own
    }

    const ids: Record<string, number> = {};
    for (const u of USERS) {
      const [row] = await trx("users")
        .insert({
          username: u.username,
          username_normalized: normalizeUsername(u.username),
          email: u.email,
          email_normalized: normalizeEmail(u.email),
          first_name: u.first,
          last_name: u.last,
          password_hash: passwordHash,
          is_demo: true,
          created_at: nowIso(),
        })
        .returning("id");
      ids[u.key] = Number(typeof row === "object" ? row.id : row);
    }
    const id = (k: string) => ids[k]!;

    // demo: two accepted friends, one request received, one sent; friends among the others too
    const friendships: [string, string, "pending" | "accepted" | "denied"][] = [
      ["demo", "marnie", "accepted"],
      ["bobbie", "demo", "accepted"],
      ["ana", "demo", "pending"],
      ["demo", "tom", "pending"],
      ["lee", "demo", "denied"],
      ["marnie", "bobbie", "accepted"],
      ["priya", "olu", "accepted"],
    ];
    const now = nowIso();
    await trx("friendships").insert(
      friendships.map(([a, b, status]) => ({
        user_id: id(a),
        friend_id: id(b),
        status,
        user_low: Math.min(id(a), id(b)),
        user_high: Math.max(id(a), id(b)),
        created_at: now,
        updated_at: now,
      })),
    );

    const kidIds: { id: number; owner: string }[] = [];
    for (const k of KIDS) {
      const [row] = await trx("kids")
        .insert({ user_id: id(k.owner), name: k.name, birth_date: k.birth, relationship: k.relationship, created_at: now })
        .returning("id");
      kidIds.push({ id: Number(typeof row === "object" ? row.id : row), owner: k.owner });
    }

    // 4 moments for each of the first 10 kids, 2 for the rest: 46 in all, spread over 60 days
    const day = 24 * 60 * 60 * 1000;
    let n = 0;
    const logRows: { kid_id: number; title: string; content: string; created_at: string; updated_at: string }[] = [];
    kidIds.forEach((kid, i) => {
      const count = i < 10 ? 4 : 3;
      for (let j = 0; j < count; j++) {
        const [title, content] = MOMENTS[(n++ * 3 + i) % MOMENTS.length]!;
        const at = new Date(Date.now() - ((i * 7 + j * 13) % 60) * day - j * 3600_000 - i * 60_000).toISOString();
        logRows.push({ kid_id: kid.id, title, content, created_at: at, updated_at: at });
      }
    });
    const logIds: { id: number; kid: number }[] = [];
    for (const r of logRows) {
      const [row] = await trx("daily_logs").insert(r).returning("id");
      logIds.push({ id: Number(typeof row === "object" ? row.id : row), kid: r.kid_id });
    }

    // likes and comments between friends: on demo's, marnie's and bobbie's kids' moments
    const circle = ["demo", "marnie", "bobbie"];
    const owners = new Map(kidIds.map((k) => [k.id, k.owner]));
    const likes: object[] = [];
    const comments: object[] = [];
    logIds.forEach((log, i) => {
      const owner = owners.get(log.kid)!;
      if (!circle.includes(owner)) return;
      circle.forEach((who, w) => {
        if ((i + w) % 3 !== 0) likes.push({ daily_log_id: log.id, user_id: id(who), created_at: now });
        if ((i + w) % 4 === 1 && who !== owner) {
          const at = new Date(Date.now() - (i % 5) * 3600_000 - w * 60_000).toISOString();
          comments.push({
            daily_log_id: log.id,
            user_id: id(who),
            comment: COMMENTS[(i + w) % COMMENTS.length],
            created_at: at,
            updated_at: at,
          });
        }
      });
    });
    if (likes.length) await trx("likes").insert(likes);
    if (comments.length) await trx("comments").insert(comments);
  });

  if (verbose) {
    console.log(`Demo data ready in ${Date.now() - started} ms: ${USERS.length} users, ${KIDS.length} kids. Log in as demo@aa.io / password.`);
  }
  return { imageKeys };
}

/** First start: seed when demo mode is on and the database has no users at all. */
export async function seedIfEmpty(): Promise<boolean> {
  const row = await db()("users").count({ n: "*" }).first();
  if (Number(row?.n ?? 0) > 0) return false;
  await seedDemo({ verbose: true });
  return true;
}
