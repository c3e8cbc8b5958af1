// The crash test (docs/decisions/0019-*): the real production server (server/index.mjs on a fresh
// build) is killed with SIGKILL while clients write concurrently (moments with photos through the
// API and through the page form, likes, comments) and while a photo upload is half sent; then it is
// started again on the same database and uploads folder. After every round, every write the clients
// were told succeeded (a 2xx, or the page form's redirect) must be in the database. At the end: the
// database is intact (SQLite: integrity_check and foreign_key_check; both engines: no row points at
// a missing parent), and after the sweep (the maintenance functions the server runs on its timer,
// with every leftover counted as old) no temp upload file and no photo without its row remain,
// while every photo row still has its files.
//
// Deterministic: the kill comes after a fixed number of acknowledged writes in the round (never
// after a delay); the half-sent upload is known to have its temp file (a watch on the temp folder)
// before the kill; the server is awaited up (its "running at" line) and down (its exit).
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseTarget, knexConfig } from "../../db/knexfile.mjs";
import { listStored } from "~/images/test-fixtures.server";
import { buildApp, call, startBuiltServer, type BuiltServer, type CallInit } from "./support/built-server";

/** Kill rounds, and the acknowledged writes after which each round's kill comes. */
const ROUNDS = 8;
const ACKS_BEFORE_KILL = 20;
/** Concurrent API writers (each: a moment with a photo, then a like and a comment on it). */
const API_WRITERS = 3;
/** Iteration bound of every writer, whatever happens (a round ends at the kill long before). */
const MAX_ITERATIONS = 200;

const tempDir = () => path.join(process.env.UPLOADS_DIR!, ".tmp");
const onSqlite = () => !process.env.DATABASE_URL?.trim();

let buildDir = "";
let server: BuiltServer | null = null;
let knex: Knex;
let photo: Buffer;

type Account = { id: number; cookie: string };
let owner: Account;
let friend: Account;
let kidId = 0;
let firstMomentId = 0;

/** What the clients were told succeeded, over all rounds. */
const acked = {
  moments: new Map<number, string>(), // id → title
  comments: new Map<number, string>(), // id → text
  likes: new Set<string>(), // `${userId}:${momentId}`
};
const unexpected: string[] = [];

const base = () => `http://127.0.0.1:${server!.port}`;

/** A set-up call that must succeed: its JSON and the session cookie it set. */
async function apiJson(pathname: string, init: CallInit) {
  const res = await call(base(), pathname, init);
  if (res.status >= 300) throw new Error(`${pathname}: ${res.status} ${res.text}`);
  return { data: JSON.parse(res.text), cookie: res.cookie };
}

async function signUp(prefix: string): Promise<Account> {
  const name = `${prefix}${crypto.randomBytes(4).toString("hex")}`;
  const json = {
    email: `${name}@example.com`,
    username: name,
    password: "secret12",
    first_name: "Crash",
    last_name: prefix,
  };
  const { data, cookie } = await apiJson("/api/auth/signup", { json });
  return { id: data.id, cookie };
}

function momentForm(title: string): FormData {
  const form = new FormData();
  form.set("title", title);
  form.set("content", `Written before a crash: ${title}`);
  form.set("image", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "photo.jpg");
  return form;
}

/**
 * One round's clients. Each request either gets an answer (a 2xx or the page's redirect is an
 * acknowledged write, recorded; anything else is unexpected) or fails because the server died
 * (then that client stops: its write may or may not have committed, and nobody was told).
 */
class Round {
  acks = 0;
  private killed = false;
  private reachedTarget!: () => void;
  /** Resolves when the round has its acknowledged writes (then the server is killed). */
  readonly ready = new Promise<void>((resolve) => (this.reachedTarget = resolve));

  constructor(
    readonly number: number,
    readonly target: number,
  ) {}

  stop() {
    this.killed = true;
  }

  private ack() {
    this.acks++;
    if (this.acks >= this.target) this.reachedTarget();
  }

  /** The request's answer, or null when the server went away under it (or was gone). */
  private async send(pathname: string, init: RequestInit): Promise<Response | null> {
    if (this.killed) return null;
    try {
      const res = await fetch(base() + pathname, { ...init, redirect: "manual" });
      await res.clone().arrayBuffer(); // the whole answer, or the failure of a cut connection
      return res;
    } catch {
      return null;
    }
  }

  private unexpected(what: string, res: Response, body: string) {
    unexpected.push(`round ${this.number}: ${what} answered ${res.status} ${body.slice(0, 200)}`);
  }

  /** Adds a moment with a photo through the API, likes it as the friend, comments on it. */
  async apiWriter(writer: number) {
    for (let i = 0; i < MAX_ITERATIONS && !this.killed; i++) {
      const title = `r${this.number} w${writer} #${i}`;
      const created = await this.send(`/api/kids/${kidId}/daily_logs/new`, {
        method: "POST",
        headers: { Cookie: owner.cookie },
        body: momentForm(title),
      });
      if (!created) return;
      const body = await created.text();
      if (created.status !== 201) return this.unexpected("a moment", created, body);
      const momentId = Number(JSON.parse(body).id);
      acked.moments.set(momentId, title);
      this.ack();

      const liked = await this.send(`/api/likes/${momentId}/like`, {
        method: "POST",
        headers: { Cookie: friend.cookie },
      });
      if (!liked) return;
      if (liked.status !== 201) return this.unexpected("a like", liked, await liked.text());
      acked.likes.add(`${friend.id}:${momentId}`);
      this.ack();

      if (!(await this.comment(friend, momentId, `on ${title}`))) return;
    }
  }

  /** Comments on the first moment (owner and friend in turn), as fast as answers come. */
  async commentWriter() {
    for (let i = 0; i < MAX_ITERATIONS && !this.killed; i++) {
      if (!(await this.comment(i % 2 ? owner : friend, firstMomentId, `r${this.number} c${i}`))) return;
    }
  }

  private async comment(who: Account, momentId: number, text: string): Promise<boolean> {
    const res = await this.send(`/api/comments/${momentId}/new-comment`, {
      method: "POST",
      headers: { Cookie: who.cookie, "Content-Type": "application/json" },
      body: JSON.stringify({ comment: text }),
    });
    if (!res) return false;
    const body = await res.text();
    if (res.status !== 201) {
      this.unexpected("a comment", res, body);
      return false;
    }
    acked.comments.set(Number(JSON.parse(body).id), text);
    this.ack();
    return true;
  }

  /** Adds moments through the page's form, as a browser without JavaScript does (post, redirect). */
  async pageWriter() {
    for (let i = 0; i < MAX_ITERATIONS && !this.killed; i++) {
      const title = `r${this.number} page #${i}`;
      const res = await this.send(`/kids/${kidId}/dailyLogs/new`, {
        method: "POST",
        headers: { Cookie: owner.cookie, Origin: base() },
        body: momentForm(title),
      });
      if (!res) return;
      const location = res.headers.get("location") ?? "";
      const m = /^\/dailyLogs\/(\d+)$/.exec(location);
      if (res.status < 300 || res.status > 303 || !m)
        return this.unexpected("the page form", res, `${location} ${await res.text()}`);
      acked.moments.set(Number(m[1]), title);
      this.ack();
    }
  }
}

/**
 * Starts a photo upload and leaves it half sent (the kill resets its connection), resolving once
 * the server has its temp file.
 */
async function halfSentUpload(): Promise<void> {
  fs.mkdirSync(tempDir(), { recursive: true });
  const before = new Set(fs.readdirSync(tempDir()));
  const watcher = fs.watch(tempDir());
  const tempFileMade = new Promise<void>((resolve) => {
    watcher.on("change", (_event, name) => {
      if (typeof name === "string" && name.endsWith(".upload") && !before.has(name)) resolve();
    });
  });
  const boundary = "crash" + crypto.randomBytes(8).toString("hex");
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nNever finished\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\nCut by the crash\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
  );
  const partial = Buffer.concat([head, photo, Buffer.alloc(64 * 1024, 7)]);
  const socket = net.connect(server!.port, "127.0.0.1");
  socket.on("error", () => {}); // the kill resets it
  socket.write(
    `POST /api/kids/${kidId}/daily_logs/new HTTP/1.1\r\nHost: 127.0.0.1:${server!.port}\r\nCookie: ${owner.cookie}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${partial.length + 1024 * 1024}\r\n\r\n`,
  );
  socket.write(partial);
  try {
    await tempFileMade;
  } finally {
    watcher.close();
  }
}

async function countRows(table: string, ids: number[]): Promise<number> {
  let found = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const row = await knex(table)
      .whereIn("id", ids.slice(i, i + 500))
      .count({ n: "*" })
      .first();
    found += Number(row?.n ?? 0);
  }
  return found;
}

/** Acknowledged writes missing from the database (each checked by id and content). */
async function lostWrites(): Promise<string[]> {
  const lost: string[] = [];
  const moments = new Map<number, string>();
  for (const r of await knex("daily_logs").select("id", "title")) moments.set(Number(r.id), String(r.title));
  for (const [id, title] of acked.moments) if (moments.get(id) !== title) lost.push(`moment ${id}`);
  const comments = new Map<number, string>();
  for (const r of await knex("comments").select("id", "comment")) comments.set(Number(r.id), String(r.comment));
  for (const [id, text] of acked.comments) if (comments.get(id) !== text) lost.push(`comment ${id}`);
  const likes = new Set(
    (await knex("likes").select("user_id", "daily_log_id")).map((r) => `${r.user_id}:${r.daily_log_id}`),
  );
  for (const like of acked.likes) if (!likes.has(like)) lost.push(`like ${like}`);
  return lost;
}

beforeAll(async () => {
  photo = await sharp({ create: { width: 96, height: 64, channels: 3, background: "#c63" } })
    .jpeg()
    .toBuffer();
  buildDir = await buildApp();
  server = await startBuiltServer(buildDir);
  knex = knexFactory(knexConfig(databaseTarget()));
  owner = await signUp("owner");
  friend = await signUp("friend");
  kidId = (
    await apiJson("/api/kids/new", {
      cookie: owner.cookie,
      form: { name: "Crash Kid", birth_date: "2021-03-04", relationship: "Dad" },
    })
  ).data.id;
  const friendship = (await apiJson("/api/friendships/new", { cookie: owner.cookie, json: { friend_id: friend.id } }))
    .data.id;
  await apiJson(`/api/friendships/${friendship}/update`, {
    method: "PUT",
    cookie: friend.cookie,
    json: { status: "accepted" },
  });
  firstMomentId = Number(
    (await apiJson(`/api/kids/${kidId}/daily_logs/new`, { cookie: owner.cookie, form: momentForm("first") })).data.id,
  );
  acked.moments.set(firstMomentId, "first");
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await knex?.destroy();
});

describe("kill -9 during concurrent writes and uploads", () => {
  const figures = { rounds: 0, acknowledged: 0, lost: -1, tempLeft: 0, sweptTemp: 0, sweptPhotos: 0 };

  it(`loses no acknowledged write over ${ROUNDS} kill rounds`, async () => {
    for (let r = 1; r <= ROUNDS; r++) {
      // the kill comes at a different point of the work in each round
      const round = new Round(r, ACKS_BEFORE_KILL + 5 * (r - 1));
      await halfSentUpload();
      const writers = [
        ...Array.from({ length: API_WRITERS }, (_, w) => round.apiWriter(w)),
        round.commentWriter(),
        round.pageWriter(),
      ];
      const allDone = Promise.all(writers);
      // every writer ends by its iteration bound if the target never comes (then the test fails below)
      await Promise.race([round.ready, allDone]);
      round.stop();
      await server!.crash();
      await allDone;
      expect(unexpected).toEqual([]);
      expect(round.acks).toBeGreaterThanOrEqual(round.target);
      figures.rounds = r;

      server = await startBuiltServer(buildDir);
      expect(await lostWrites(), `after round ${r}`).toEqual([]);
    }
    figures.acknowledged = acked.moments.size + acked.comments.size + acked.likes.size;
    figures.lost = (await lostWrites()).length;
    expect(figures.lost).toBe(0);
    // the server works after all this: an ordinary write and its read
    const res = await call(base(), `/api/comments/${firstMomentId}/new-comment`, {
      cookie: friend.cookie,
      json: { comment: "after the crashes" },
    });
    expect(res.status).toBe(201);
  }, 600_000);

  it("leaves an intact database: integrity, foreign keys, no row pointing at a missing parent", async () => {
    await server!.stop();
    server = null;
    if (onSqlite()) {
      const integrity = await knex.raw("PRAGMA integrity_check");
      expect(integrity).toEqual([{ integrity_check: "ok" }]);
      expect(await knex.raw("PRAGMA foreign_key_check")).toEqual([]);
    }
    const dangling = async (table: string, column: string, parent: string) =>
      Number(
        (
          await knex(table)
            .leftJoin(parent, `${parent}.id`, `${table}.${column}`)
            .whereNotNull(`${table}.${column}`)
            .whereNull(`${parent}.id`)
            .count({ n: "*" })
            .first()
        )?.n ?? 0,
      );
    expect(await dangling("daily_logs", "kid_id", "kids")).toBe(0);
    expect(await dangling("daily_logs", "image_id", "images")).toBe(0);
    expect(await dangling("comments", "daily_log_id", "daily_logs")).toBe(0);
    expect(await dangling("likes", "daily_log_id", "daily_logs")).toBe(0);
    expect(await dangling("kids", "image_id", "images")).toBe(0);
    // every acknowledged moment has its photo row
    const ids = [...acked.moments.keys()];
    expect(await countRows("daily_logs", ids)).toBe(ids.length);
    const withPhoto = await knex("daily_logs")
      .whereIn("id", ids.slice(0, 500))
      .whereNotNull("image_id")
      .count({ n: "*" })
      .first();
    expect(Number(withPhoto?.n)).toBe(Math.min(ids.length, 500));
  });

  it("leaves no temp upload and no photo without its row after the sweep; every photo row keys its files", async () => {
    // each round left a half-sent upload's temp file: the sweep has work to do
    figures.tempLeft = fs.readdirSync(tempDir()).filter((n) => n.endsWith(".upload")).length;
    expect(figures.tempLeft).toBeGreaterThanOrEqual(ROUNDS);
    const { sweepTempUploads } = await import("~/images/multipart.server");
    const { sweepUploads } = await import("~/images/storage.server");
    figures.sweptTemp = await sweepTempUploads(-1);
    figures.sweptPhotos = await sweepUploads(-1);
    expect(fs.readdirSync(tempDir()).filter((n) => n.endsWith(".upload"))).toEqual([]);

    const rows = new Set((await knex("images").pluck("key")).map(String));
    const stored = new Set((await listStored()).map((file) => file.split("/")[0]!));
    expect([...stored].filter((key) => !rows.has(key))).toEqual([]); // no orphan photo
    expect([...rows].filter((key) => !stored.has(key))).toEqual([]); // no photo row without its files
    const referenced = new Set(
      [
        ...(await knex("daily_logs").whereNotNull("image_id").pluck("image_id")),
        ...(await knex("moment_photos").pluck("image_id")),
        ...(await knex("kids").whereNotNull("image_id").pluck("image_id")),
        ...(await knex("users").whereNotNull("image_id").pluck("image_id")),
        // a photo chosen in a moment's form before its moment is saved (docs/decisions/0067-one-photo-control.md)
        ...(await knex("pending_photos").pluck("image_id")),
        ...(await knex("draft_photos").pluck("image_id")),
      ].map(Number),
    );
    const unreferenced = (await knex("images").pluck("id")).map(Number).filter((id) => !referenced.has(id));
    expect(unreferenced).toEqual([]); // a photo row commits with its moment, never alone
    console.log(`[crash test] ${JSON.stringify({ ...figures, lost: figures.lost })}`);
  });
});
