// @ts-check
// The benchmark's scale dataset, written straight into a fresh SQLite file (or, with a postgres://
// URL, an empty PostgreSQL database) with set-based SQL (recursive CTEs inside one transaction):
// ~2,000 users, 5,000 kids, 200,000 moments, 1,000,000 likes, 300,000 comments. Photos are
// generated once and shared by many rows.
import crypto from "node:crypto";
import path from "node:path";
import fs from "node:fs";
import { promisify } from "node:util";
import knexFactory from "knex";
import sharp from "sharp";
import { isPostgresUrl, knexConfig } from "../db/knexfile.mjs";

export const BENCH_EMAIL = "bench@example.com";
export const BENCH_PASSWORD = "benchpass";
export const SIZES = { users: 2000, kids: 5000, moments: 200_000, likes: 1_000_000, comments: 300_000, friends: 50 };

/** Same stored format as app/lib/password.server.ts (scrypt$N$r$p$salt$hash). */
async function scryptHash(password) {
  const salt = crypto.randomBytes(16);
  const hash = /** @type {Buffer} */ (
    await promisify(crypto.scrypt)(password.normalize("NFKC"), salt, 32, {
      N: 2 ** 15,
      r: 8,
      p: 1,
      maxmem: 64 * 1024 * 1024,
    })
  );
  return ["scrypt", 2 ** 15, 8, 1, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

const WIDTHS = [160, 320, 640, 1280];

/** A few photo records with real files (1280×960 source), shared by many moments. */
async function makePhotos(uploadsDir, count) {
  const photos = [];
  for (let i = 0; i < count; i++) {
    const key = crypto.randomBytes(18).toString("base64url");
    const dir = path.join(uploadsDir, key);
    fs.mkdirSync(dir, { recursive: true });
    const hue = (i * 47) % 360;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="960"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},70%,75%)"/><stop offset="1" stop-color="hsl(${(hue + 60) % 360},60%,45%)"/></linearGradient></defs><rect width="1280" height="960" fill="url(#g)"/><circle cx="${300 + i * 40}" cy="420" r="220" fill="hsl(${(hue + 180) % 360},70%,80%)" opacity="0.7"/></svg>`;
    const base = sharp(Buffer.from(svg)).removeAlpha();
    for (const w of WIDTHS) {
      await base
        .clone()
        .resize({ width: w })
        .webp({ quality: 80, effort: 2 })
        .toFile(path.join(dir, `${w}.webp`));
    }
    const tiny = await base.clone().resize({ width: 16 }).webp({ quality: 40 }).toBuffer();
    photos.push({ key, placeholder: `data:image/webp;base64,${tiny.toString("base64")}` });
  }
  return photos;
}

// The few expressions the two engines spell differently.
const sqliteSql = {
  /** the *_at format (ISO 8601 UTC, milliseconds) of `seconds` after the epoch */
  isoAt: (/** @type {string} */ seconds) => `strftime('%Y-%m-%dT%H:%M:%S.000Z', ${seconds}, 'unixepoch')`,
  /** YYYY-MM-DD */
  date: (/** @type {string} */ y, /** @type {string} */ m, /** @type {string} */ d) =>
    `printf('%04d-%02d-%02d', ${y}, ${m}, ${d})`,
};
const postgresSql = {
  isoAt: (/** @type {string} */ seconds) =>
    `to_char(to_timestamp(${seconds}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS".000Z"')`,
  date: (/** @type {string} */ y, /** @type {string} */ m, /** @type {string} */ d) =>
    `to_char(make_date(${y}, ${m}, ${d}), 'YYYY-MM-DD')`,
};

/**
 * @param {{ databaseFile: string, databaseUrl?: string | null, uploadsDir: string }} opts
 * @returns {Promise<{ seconds: number, ids: { benchUser: number, kid5: number, kid20: number, kid5000: number, moment: number, likedMoment: number } }>}
 */
export async function seedScale({ databaseFile, databaseUrl = null, uploadsDir }) {
  const started = Date.now();
  const onPostgres = isPostgresUrl(databaseUrl);
  const sql = onPostgres ? postgresSql : sqliteSql;
  const knex = knexFactory(knexConfig(databaseUrl ?? databaseFile));
  await knex.migrate.latest();
  // rows get fixed ids: the database must be as new as the temp SQLite file is
  if (onPostgres && (await knex("users").first("id"))) {
    await knex.destroy();
    throw new Error("seedScale: the PostgreSQL database is not empty (the benchmark needs a fresh one)");
  }
  const hash = await scryptHash(BENCH_PASSWORD);
  const photos = await makePhotos(uploadsDir, 24);
  const now = new Date().toISOString();
  const text200 =
    "Today was one of those days we want to remember: a walk by the river, ducks that would not stop following us, " +
    "a picnic with too many strawberries, and a very long nap on the way home. Tomorrow: the playground again!";

  await knex.transaction(async (trx) => {
    // users: 1 is the benchmark user
    await trx.raw(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO users (id, username, username_normalized, email, email_normalized, first_name, last_name, password_hash, is_demo, created_at)
       SELECT i, 'user' || i, 'user' || i, CASE i WHEN 1 THEN ? ELSE 'user' || i || '@example.com' END,
              CASE i WHEN 1 THEN ? ELSE 'user' || i || '@example.com' END,
              'First' || i, 'Last' || i, ?, false, ? FROM n`,
      [SIZES.users, BENCH_EMAIL, BENCH_EMAIL, hash, now],
    );
    // photos shared by many rows (owner 1: bench data only)
    for (const [i, p] of photos.entries()) {
      await trx("images").insert({
        id: i + 1,
        key: p.key,
        kind: "log",
        owner_id: 1,
        width: 1280,
        height: 960,
        widths: WIDTHS.join(","),
        placeholder: p.placeholder,
        created_at: now,
      });
    }
    // kids: 1..3 belong to the benchmark user (5, 20 and 5,000 moments); the rest round-robin
    await trx.raw(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO kids (id, user_id, name, birth_date, relationship, image_id, created_at)
       SELECT i, CASE WHEN i <= 3 THEN 1 ELSE ((i - 4) % ?) + 2 END, 'Kid ' || i,
              ${sql.date("2014 + (i % 10)", "(i % 12) + 1", "(i % 28) + 1")},
              CASE i % 5 WHEN 0 THEN 'Mom' WHEN 1 THEN 'Dad' WHEN 2 THEN 'Grandpa' WHEN 3 THEN 'Grandma' ELSE 'Other' END,
              (i % ?) + 1, ? FROM n`,
      [SIZES.kids, SIZES.users - 1, photos.length, now],
    );
    // moments: kid 1 → 5, kid 2 → 20, kid 3 → 5,000; the rest spread over kids 4..5000
    const special = 5 + 20 + 5000;
    const t0 = Date.parse("2026-01-01T00:00:00.000Z") / 1000;
    await trx.raw(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO daily_logs (id, kid_id, title, content, image_id, created_at, updated_at, taken_on)
       SELECT i,
              CASE WHEN i <= 5 THEN 1 WHEN i <= 25 THEN 2 WHEN i <= ? THEN 3 ELSE ((i - ? - 1) % ?) + 4 END,
              'Moment ' || i, ?, (i % ?) + 1,
              ${sql.isoAt("? + i * 37")}, ${sql.isoAt("? + i * 37")}, substr(${sql.isoAt("? + i * 37")}, 1, 10)
       FROM n`,
      [SIZES.moments, special, special, SIZES.kids - 3, text200, photos.length, t0, t0, t0],
    );
    // likes: 5 distinct users per moment
    await trx.raw(
      `WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 4)
       INSERT INTO likes (daily_log_id, user_id, created_at)
       SELECT d.id, ((d.id * 7 + k.j * 131) % ?) + 1, ? FROM daily_logs d CROSS JOIN k`,
      [SIZES.users, now],
    );
    // comments: 0–3 per moment (1.5 on average → 300,000), 1, 2 or 3 hours after the moment
    await trx.raw(
      `WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 2)
       INSERT INTO comments (daily_log_id, user_id, comment, created_at, updated_at)
       SELECT d.id, ((d.id * 13 + k.j * 17) % ?) + 1, 'What a lovely moment! Thanks for sharing it with us.',
              ${sql.isoAt("? + d.id * 37 + (k.j + 1) * 3600")}, ${sql.isoAt("? + d.id * 37 + (k.j + 1) * 3600")}
       FROM daily_logs d CROSS JOIN k WHERE k.j < (d.id % 4)`,
      [SIZES.users, t0, t0],
    );
    // friendships: the benchmark user and users 2..51 accepted; a ring among the others (the
    // ordered pair user_low/user_high is generated by the database)
    await trx.raw(
      `WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO friendships (user_id, friend_id, status, created_at, updated_at)
       SELECT 1, i, 'accepted', ?, ? FROM n`,
      [SIZES.friends + 1, now, now],
    );
    await trx.raw(
      `WITH RECURSIVE n(i) AS (SELECT 60 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO friendships (user_id, friend_id, status, created_at, updated_at)
       SELECT i, i + 1, CASE i % 3 WHEN 0 THEN 'pending' ELSE 'accepted' END, ?, ? FROM n`,
      [SIZES.users - 1, now, now],
    );
  });
  if (onPostgres) {
    // ids were given explicitly: move each sequence past them, so the app's inserts do not collide
    for (const t of ["users", "images", "kids", "daily_logs"]) {
      await knex.raw(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), (SELECT max(id) FROM ${t}))`);
    }
  }
  await knex.raw("ANALYZE");
  if (!onPostgres) await knex.raw("PRAGMA wal_checkpoint(TRUNCATE)");
  const counts = {};
  for (const t of ["users", "kids", "daily_logs", "likes", "comments", "friendships"]) {
    const row = await knex(t).count({ n: "*" }).first();
    counts[t] = Number(row?.n ?? 0);
  }
  // a moment of the 20-moment kid that has comments and likes
  const moment = await knex("daily_logs").where("kid_id", 2).orderBy("id", "desc").first("id");
  await knex.destroy();
  return {
    seconds: (Date.now() - started) / 1000,
    counts,
    ids: {
      benchUser: 1,
      kid5: 1,
      kid20: 2,
      kid5000: 3,
      moment: Number(moment?.id ?? 25),
      likedMoment: Number(moment?.id ?? 25),
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? fs.mkdtempSync("/tmp/sm-scale-");
  const result = await seedScale({
    databaseFile: path.join(dir, "bench.sqlite"),
    databaseUrl: process.env.DATABASE_URL || null,
    uploadsDir: path.join(dir, "uploads"),
  });
  console.log(JSON.stringify(result, null, 2));
}
