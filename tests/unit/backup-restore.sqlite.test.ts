// npm run backup / npm run restore (server/backup.mjs, server/restore.mjs; README "Your data"):
// the real commands as child processes. Seed, back up while another connection keeps writing,
// restore into another folder, compare every row and every photo file's hash. SQLite only
// (PostgreSQL is backed up with pg_dump; the command refuses and says so).
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";
import { afterAll, describe, expect, it } from "vitest";
import { knexConfig } from "../../db/knexfile.mjs";
import { config } from "../../app/lib/config.server";
import { db, nowIso } from "../../app/lib/db.server";
import { makeUser } from "../helpers";
import { runServerScript } from "./support/server-script";
import { insertReadyClip } from "./clip-fixtures";
import { insertComment, insertFriendship, insertKid, insertLike, insertMoment, storePhoto } from "./friends-fixtures";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-backup-test-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const run = (script: string, args: string[], env: Record<string, string>) => runServerScript(script, args, env);

const sha = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");

function photoFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !path.relative(dir, path.join(e.parentPath, e.name)).startsWith(".tmp"))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

async function tables(k: ReturnType<typeof knexFactory>): Promise<string[]> {
  const rows: { name: string }[] = await k.raw(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
  );
  return rows.map((r) => r.name);
}

describe("backup and restore", () => {
  it("round-trips every row and every photo file while the server keeps writing; restore refuses a non-empty folder without --force", async () => {
    const cfg = config();
    const alice = await makeUser();
    const bob = await makeUser();
    await insertFriendship(alice, bob, "accepted");
    for (const [who, color] of [
      [alice, "#a11"],
      [bob, "#1b1"],
    ] as const) {
      const kidPhoto = await storePhoto("kid", who.id, color);
      const kid = await insertKid(who, "Kid", kidPhoto.imageId);
      for (let i = 0; i < 3; i++) {
        const photo = await storePhoto("moment", who.id, color);
        const m = await insertMoment(kid, `Moment ${i}`, photo.imageId);
        await insertLike(m, who === alice ? bob : alice);
        await insertComment(m, who === alice ? bob : alice, "seeded");
        // a prepared clip too: its renditions are backed up with the photos (docs/decisions/0064-video-clips.md)
        if (who === alice && i === 0) await insertReadyClip(m, alice.id);
      }
    }
    // the secret that signs session cookies lives beside the database (here SESSION_SECRET wins)
    fs.writeFileSync(path.join(cfg.dataDir, "session-secret"), crypto.randomBytes(32).toString("hex"));
    const seededMoment = (await db()("daily_logs").first("id"))!.id as number;
    const before = new Set((await db()("comments").pluck("id")).map(Number));

    // the backup, with writes going on meanwhile (another connection, as the server would)
    const archive = path.join(work, "backup.zip");
    const env = { DATABASE_FILE: cfg.databaseFile, UPLOADS_DIR: cfg.uploadsDir };
    let done = false;
    const backingUp = run("backup.mjs", [archive], env).finally(() => (done = true));
    let written = 0;
    while (!done) {
      const now = nowIso();
      await db()("comments").insert({
        daily_log_id: seededMoment,
        user_id: bob.id,
        comment: `load ${written}`,
        created_at: now,
        updated_at: now,
      });
      written++;
    }
    const result = await backingUp;
    expect(result.out).toMatch(/Backed up the database and \d+ photo files/);
    expect(result.code).toBe(0);
    expect(written).toBeGreaterThan(0);

    // restore into an empty folder elsewhere
    const target = {
      DATABASE_FILE: path.join(work, "restored", "data", "db.sqlite"),
      UPLOADS_DIR: path.join(work, "restored", "uploads"),
    };
    const restored = await run("restore.mjs", [archive], target);
    expect(restored.out).toContain("Restored the database");
    expect(restored.code).toBe(0);

    const source = db();
    const copy = knexFactory(knexConfig(target.DATABASE_FILE));
    try {
      expect(await tables(copy)).toEqual(await tables(source));
      for (const table of await tables(source)) {
        const rows = (await copy(table).select("*")).map((r) => JSON.stringify(r));
        const sourceRows = new Set((await source(table).select("*")).map((r) => JSON.stringify(r)));
        // every row of the copy is the source's row, unchanged
        expect(
          rows.filter((r) => !sourceRows.has(r)),
          table,
        ).toEqual([]);
        if (table !== "comments" && table !== "knex_migrations_lock") expect(rows.length, table).toBe(sourceRows.size);
      }
      // the comments written during the backup: the copy holds those of one moment, a prefix of them
      const copied = (await copy("comments").orderBy("id").pluck("id")).map(Number);
      expect(copied.filter((id) => before.has(id)).length).toBe(before.size);
      const load = copied.filter((id) => !before.has(id));
      const allLoad = (await source("comments").orderBy("id").pluck("id")).map(Number).filter((id) => !before.has(id));
      expect(load).toEqual(allLoad.slice(0, load.length));
      expect((await copy.raw("pragma integrity_check"))[0].integrity_check).toBe("ok");

      // every photo file, byte for byte; and every photo row of the copy has its files
      const files = photoFiles(target.UPLOADS_DIR);
      expect(files).toEqual(photoFiles(cfg.uploadsDir));
      // every size of each photo (8, and the clip's poster), the moments' photos' full-size copies,
      // and the clip's two renditions
      const images = await source("images").select("widths", "original_width");
      const originals = images.filter((i) => i.original_width != null).length;
      expect(originals).toBeGreaterThan(0);
      const sizes = images.reduce((n, i) => n + String(i.widths).split(",").length, 0);
      expect(files.length).toBe(sizes + originals + 2);
      for (const clip of await copy("videos").select("key")) {
        expect(files).toContain(path.join(clip.key, "small.mp4"));
        expect(files).toContain(path.join(clip.key, "large.mp4"));
      }
      for (const f of files) expect(sha(path.join(target.UPLOADS_DIR, f)), f).toBe(sha(path.join(cfg.uploadsDir, f)));
      for (const image of await copy("images").select("key", "widths", "original_width")) {
        for (const w of String(image.widths).split(",")) expect(files).toContain(path.join(image.key, `${w}.webp`));
        if (image.original_width != null) expect(files).toContain(path.join(image.key, "original.jpg"));
      }
      expect(fs.readFileSync(path.join(path.dirname(target.DATABASE_FILE), "session-secret"), "utf8")).toBe(
        fs.readFileSync(path.join(cfg.dataDir, "session-secret"), "utf8"),
      );
    } finally {
      await copy.destroy();
    }

    // not again over it, unless told to
    const refused = await run("restore.mjs", [archive], target);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain("the data folder is not empty");
    const forced = await run("restore.mjs", [archive, "--force"], target);
    expect(forced.code).toBe(0);

    // the wrong kind of file is refused, and changes nothing
    const notBackup = path.join(work, "not-a-backup.zip");
    fs.writeFileSync(notBackup, "hello");
    const bad = await run("restore.mjs", [notBackup], {
      DATABASE_FILE: path.join(work, "empty", "db.sqlite"),
      UPLOADS_DIR: path.join(work, "empty", "up"),
    });
    expect(bad.code).toBe(1);
    expect(fs.existsSync(path.join(work, "empty", "db.sqlite"))).toBe(false);
  });

  it("refuses PostgreSQL and S3 with what to use instead", async () => {
    const pg = await run("backup.mjs", [path.join(work, "x.zip")], {
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
    });
    expect(pg.code).toBe(1);
    expect(pg.out).toContain("pg_dump");
    const s3 = await run("backup.mjs", [path.join(work, "y.zip")], {
      STORAGE: "s3",
      S3_BUCKET: "b",
      DATABASE_FILE: config().databaseFile,
    });
    expect(s3.code).toBe(1);
    expect(s3.out).toContain("aws s3 sync");
  });
});
