// Private files are private on disk (docs/decisions/0042-uploads-limits-private-files-and-one-line-text.md):
// the database with its WAL and SHM files, the session secret, backups (they hold the secret) and
// the mail outbox are 0600 and the folders made for them 0700, whatever the umask: the real
// commands run as child processes under umask 000, the outbox in this process under umask 000.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import knexFactory from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knexConfig } from "../../db/knexfile.mjs";
import { config } from "../../app/lib/config.server";
import { deliver } from "../../app/mail/transport.server";
import { runServerScript } from "./support/server-script";

const root = path.resolve(import.meta.dirname, "../..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "sm-private-test-"));
let umask = 0;
beforeAll(() => {
  umask = process.umask(0);
});
afterAll(() => {
  process.umask(umask);
  fs.rmSync(work, { recursive: true, force: true });
});

/** A server/ command under umask 000 (the most permissive an operator could have); the secret is made and kept in its file. */
const run = (script: string, args: string[], env: Record<string, string>) =>
  runServerScript(script, args, { DEMO: "false", SESSION_SECRET: undefined, ...env }, { umask: "000" });

const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);

describe("private files", () => {
  it("the database, its WAL and SHM, the session secret, a backup and a restore are 0600, their new folders 0700, under umask 000", async () => {
    const dataDir = path.join(work, "new", "data");
    const databaseFile = path.join(dataDir, "sweet.sqlite");
    const env = { DATABASE_FILE: databaseFile, UPLOADS_DIR: path.join(work, "new", "uploads") };
    const migrated = await run("migrate.mjs", [], env);
    expect(migrated.code, migrated.out).toBe(0);
    expect([
      mode(path.join(work, "new")),
      mode(dataDir),
      mode(databaseFile),
      mode(path.join(dataDir, "session-secret")),
      mode(env.UPLOADS_DIR),
    ]).toEqual(["700", "700", "600", "600", "700"]);

    // WAL and SHM while a connection writes (made by SQLite, this process's umask is 000 too)
    const knex = knexFactory(knexConfig(databaseFile));
    try {
      await knex("rate_limits").insert({ key: "k", count: 1, window_ends_at: "2099-01-01T00:00:00.000Z" });
      expect([mode(`${databaseFile}-wal`), mode(`${databaseFile}-shm`)]).toEqual(["600", "600"]);
    } finally {
      await knex.destroy();
    }

    const archive = path.join(work, "backups", "nightly", "sweet.zip");
    const backedUp = await run("backup.mjs", [archive], env);
    expect(backedUp.code, backedUp.out).toBe(0);
    expect([mode(path.join(work, "backups")), mode(path.dirname(archive)), mode(archive)]).toEqual([
      "700",
      "700",
      "600",
    ]);

    const restoredDir = path.join(work, "restored", "data");
    const restored = await run("restore.mjs", [archive], {
      DATABASE_FILE: path.join(restoredDir, "sweet.sqlite"),
      UPLOADS_DIR: path.join(work, "restored", "uploads"),
    });
    expect(restored.code, restored.out).toBe(0);
    expect([
      mode(restoredDir),
      mode(path.join(restoredDir, "sweet.sqlite")),
      mode(path.join(restoredDir, "session-secret")),
    ]).toEqual(["700", "600", "600"]);
  });

  it("the mail outbox folder is 0700 and its messages 0600, under umask 000", async () => {
    const outbox = config().outboxDir;
    fs.rmSync(outbox, { recursive: true, force: true });
    await deliver({
      id: 7,
      kind: "sign-in",
      to: "ana@example.com",
      subject: "Your link",
      text: "a link",
      messageId: "<m7@localhost>",
      attempts: 0,
      claimToken: "t",
    });
    const files = fs.readdirSync(outbox);
    expect(files).toEqual(["000007-sign-in.eml"]);
    expect([mode(outbox), mode(path.join(outbox, files[0]!))]).toEqual(["700", "600"]);
  });

  it("the default backups folder is ignored by git", () => {
    expect(fs.readFileSync(path.join(root, ".gitignore"), "utf8").split("\n")).toContain("backups/");
  });
});
