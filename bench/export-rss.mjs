// @ts-check
// Peak server memory while it streams "Download all my data" for an account with 1,000 moments,
// each with its own photo and every tenth with three (moment_photos), each dated by the parent
// (taken_on) (docs/decisions/0023-streamed-export.md). Not a test: it prints figures.
//   node bench/export-rss.mjs [moments]   (needs a production build in build/; about a minute;
//   BENCH_PORT picks the server's port)
// The server runs as `npm start` runs it (NODE_ENV=production, MALLOC_ARENA_MAX=2); the peak is
// the kernel's high-water mark of its resident memory (VmHWM), read before and after the export.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";
import sharp from "sharp";
import { knexConfig } from "../db/knexfile.mjs";

const MOMENTS = Number(process.argv[2] ?? 1000);
const root = path.resolve(import.meta.dirname, "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-export-rss-"));
const port = Number(process.env.BENCH_PORT) || 3900 + Math.floor(Math.random() * 90);
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  PORT: String(port),
  HOST: "127.0.0.1",
  ALLOWED_HOSTS: "127.0.0.1", // reached at that address (the site itself is http://localhost:<port>)
  DATABASE_FILE: path.join(dir, "db.sqlite"),
  DATABASE_URL: "",
  UPLOADS_DIR: path.join(dir, "uploads"),
  SESSION_SECRET: crypto.randomBytes(32).toString("hex"),
  DEMO: "false",
  NODE_ENV: "production",
  MALLOC_ARENA_MAX: "2",
};
const server = spawn(process.execPath, ["server/index.mjs"], {
  cwd: root,
  env,
  stdio: ["ignore", "ignore", "inherit"],
});
const hwm = () => {
  const status = fs.readFileSync(`/proc/${server.pid}/status`, "utf8");
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { peak: kb("VmHWM") / 1024, now: kb("VmRSS") / 1024 };
};
try {
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${base}/favicon.svg`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const signup = await fetch(`${base}/api/auth/signup`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "rss@example.com", username: "rssuser", password: "secret1" }),
  });
  const cookie = signup.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  const api = async (p, form) =>
    (await fetch(base + p, { method: "POST", headers: { Cookie: cookie }, body: form })).json();
  const kidForm = new FormData();
  kidForm.set("name", "Elsa");
  kidForm.set("birth_date", "2020-01-02");
  kidForm.set("relationship", "Mom");
  const kid = await api("/api/kids/new", kidForm);
  // one real photo through the upload pipeline (a noisy one, so its WebP is photo-sized) ...
  const jpeg = await sharp({
    create: {
      width: 1600,
      height: 1200,
      channels: 3,
      background: "#888",
      noise: { type: "gaussian", mean: 128, sigma: 25 },
    },
  })
    .jpeg({ quality: 90 })
    .toBuffer();
  const form = new FormData();
  form.set("title", "Moment 0");
  form.set("content", "The first one.");
  form.set("image", new Blob([new Uint8Array(jpeg)], { type: "image/jpeg" }), "p.jpg");
  const first = await api(`/api/kids/${kid.id}/daily_logs/new`, form);
  // ... copied under a new key for every other photo (rows written straight into the database)
  const knex = knexFactory(knexConfig(env.DATABASE_FILE));
  const image = await knex("images").where("id", knex("daily_logs").where("id", first.id).select("image_id")).first();
  const now = new Date().toISOString();
  const copy = async () => {
    const key = crypto.randomBytes(16).toString("base64url");
    fs.cpSync(path.join(env.UPLOADS_DIR, image.key), path.join(env.UPLOADS_DIR, key), { recursive: true });
    const [row] = await knex("images")
      .insert({ ...image, id: undefined, key, created_at: now })
      .returning("id");
    return Number(row.id ?? row);
  };
  let photos = 1;
  for (let i = 1; i < MOMENTS; i++) {
    const ids = i % 10 === 0 ? [await copy(), await copy(), await copy()] : [await copy()];
    photos += ids.length;
    const created = new Date(Date.parse("2024-01-01T00:00:00Z") + i * 86_400_000).toISOString();
    const takenOn = new Date(Date.parse("2023-06-01T00:00:00Z") + ((i * 7919) % MOMENTS) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const [log] = await knex("daily_logs")
      .insert({
        kid_id: kid.id,
        title: `Moment ${i}`,
        content: "A day.",
        image_id: ids[0],
        photo_count: ids.length,
        taken_on: takenOn,
        posted_by: kid.user_id ?? null,
        created_at: created,
        updated_at: created,
      })
      .returning("id");
    await knex("moment_photos").insert(
      ids.map((image_id, position) => ({
        daily_log_id: Number(log.id ?? log),
        image_id,
        position,
        alt: `Moment ${i}, photo ${position + 1}`,
      })),
    );
  }
  await knex.destroy();
  const largest = image.widths.split(",").at(-1);
  const photoBytes = fs.statSync(path.join(env.UPLOADS_DIR, image.key, `${largest}.webp`)).size;

  await fetch(`${base}/api/auth`, { headers: { Cookie: cookie } }); // warm
  const before = hwm();
  const started = Date.now();
  const res = await fetch(`${base}/api/export`, { headers: { Cookie: cookie } });
  let bytes = 0;
  let sampled = 0;
  const reader = /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (res.body?.getReader());
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    sampled = Math.max(sampled, hwm().now);
  }
  const after = hwm();
  console.log(
    JSON.stringify(
      {
        moments: MOMENTS,
        photos,
        photo_bytes_each: photoBytes,
        zip_mb: +(bytes / 1e6).toFixed(1),
        seconds: +((Date.now() - started) / 1000).toFixed(1),
        rss_before_mb: +before.now.toFixed(1),
        peak_rss_before_mb: +before.peak.toFixed(1),
        peak_rss_during_export_mb: +after.peak.toFixed(1),
        max_sampled_rss_mb: +sampled.toFixed(1),
      },
      null,
      2,
    ),
  );
} finally {
  server.kill();
  fs.rmSync(dir, { recursive: true, force: true });
}
