// @ts-check
// The benchmark's floor: the least a server can do to answer GET /api/kids/{id}/daily_logs.
// node:http, the same SQLite file through the same driver (sqlite3), the same session check
// (signed cookie → sha256 → sessions row) and access rule (owner or accepted friend; the app also
// checks audiences and blocks), the same JSON from the same two queries, written by hand, and the
// same compression as the server's (server/compress.mjs), so the comparison is of the same work.
import crypto from "node:crypto";
import http from "node:http";
import sqlite3 from "sqlite3";
import { MIN_COMPRESS, compress, pickEncoding } from "../server/compress.mjs";

const db = new sqlite3.Database(process.env.DATABASE_FILE ?? "");
db.exec("PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
const secret = process.env.SESSION_SECRET ?? "";

/** @returns {Promise<any[]>} */
const all = (stmt, params) =>
  new Promise((resolve, reject) => stmt.all(params, (err, rows) => (err ? reject(err) : resolve(rows))));
const sessionStmt = db.prepare(
  "SELECT users.id FROM sessions JOIN users ON users.id = sessions.user_id WHERE sessions.id = ? AND sessions.expires_at > ?",
);
const kidStmt = db.prepare("SELECT id, user_id FROM kids WHERE id = ?");
const friendStmt = db.prepare(
  "SELECT id FROM friendships WHERE user_low = ? AND user_high = ? AND status = 'accepted'",
);
const logsStmt = db.prepare(
  `SELECT daily_logs.id, daily_logs.kid_id, daily_logs.title, daily_logs.content, daily_logs.created_at,
          daily_logs.taken_on, daily_logs.milestone, daily_logs.posted_by, daily_logs.audience, daily_logs.photo_count,
          images.key AS image_key, images.widths AS image_widths, images.width AS image_width,
          images.height AS image_height, first_photos.alt AS image_alt
     FROM daily_logs LEFT JOIN images ON images.id = daily_logs.image_id
          LEFT JOIN moment_photos AS first_photos ON first_photos.daily_log_id = daily_logs.id AND first_photos.image_id = daily_logs.image_id
    WHERE daily_logs.kid_id = ? ORDER BY daily_logs.taken_on DESC, daily_logs.created_at DESC, daily_logs.id DESC`,
);
// the photos of the moments that have more than one (the API's `photos`), in one query
const photosSql = (n) =>
  `SELECT moment_photos.daily_log_id, moment_photos.alt, images.key, images.widths, images.width, images.height
     FROM moment_photos JOIN images ON images.id = moment_photos.image_id
    WHERE moment_photos.daily_log_id IN (${Array(n).fill("?").join(",")}) ORDER BY moment_photos.daily_log_id, moment_photos.position`;
const url = (key, widths) => `/images/${key}/${widths.split(",").pop()}.webp`;

/** The session token from React Router's signed cookie: base64(JSON) "." HMAC-SHA256. */
function tokenFrom(cookieHeader) {
  const m = /(?:^|;\s*)sm_session=([^;]+)/.exec(cookieHeader ?? "");
  if (!m) return null;
  const raw = decodeURIComponent(m[1] ?? "");
  const dot = raw.lastIndexOf(".");
  if (dot < 0) return null;
  const value = raw.slice(0, dot);
  const expected = crypto.createHmac("sha256", secret).update(value).digest("base64").replace(/=+$/, "");
  if (raw.slice(dot + 1) !== expected) return null;
  try {
    return JSON.parse(decodeURIComponent(escape(Buffer.from(value, "base64").toString("binary"))));
  } catch {
    return null;
  }
}

const send = async (req, res, status, body) => {
  const raw = Buffer.from(JSON.stringify(body));
  const encoding = raw.length >= MIN_COMPRESS ? pickEncoding(req.headers["accept-encoding"]) : null;
  const out = encoding ? await compress(raw, encoding) : raw;
  /** @type {Record<string, string | number>} */
  const headers = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": out.length,
    Vary: "Accept-Encoding",
  };
  if (encoding) headers["Content-Encoding"] = encoding;
  res.writeHead(status, headers);
  res.end(out);
};

http
  .createServer(async (req, res) => {
    try {
      if (req.url === "/health") return send(req, res, 200, { ok: true });
      const m = /^\/api\/kids\/(\d+)\/daily_logs$/.exec(req.url ?? "");
      if (!m) return send(req, res, 404, { errors: { message: "Not found" } });
      const token = tokenFrom(req.headers.cookie);
      const hash = token ? crypto.createHash("sha256").update(String(token)).digest("hex") : "";
      const [viewer] = token ? await all(sessionStmt, [hash, new Date().toISOString()]) : [];
      if (!viewer) return send(req, res, 401, { errors: { message: "Unauthorized" } });
      const [kid] = await all(kidStmt, [Number(m[1])]);
      if (!kid) return send(req, res, 404, { errors: { message: "Kid not found" } });
      if (kid.user_id !== viewer.id) {
        const [f] = await all(friendStmt, [Math.min(kid.user_id, viewer.id), Math.max(kid.user_id, viewer.id)]);
        if (!f) return send(req, res, 403, { errors: { message: "You are not authorized" } });
      }
      const rows = await all(logsStmt, [kid.id]);
      const photos = new Map();
      const several = rows.filter((r) => r.photo_count > 1).map((r) => r.id);
      if (several.length) {
        const stmt = db.prepare(photosSql(several.length));
        for (const p of await all(stmt, several)) {
          const list = photos.get(p.daily_log_id) ?? [];
          list.push({ url: url(p.key, p.widths), width: p.width, height: p.height, alt: p.alt });
          photos.set(p.daily_log_id, list);
        }
        stmt.finalize();
      }
      const first = (r) =>
        r.image_key
          ? [
              {
                url: url(r.image_key, r.image_widths),
                width: r.image_width,
                height: r.image_height,
                alt: r.image_alt ?? r.title,
              },
            ]
          : [];
      const parent = kid.user_id === viewer.id;
      await send(req, res, 200, {
        daily_logs: rows.map((r) => ({
          id: r.id,
          kid_id: r.kid_id,
          title: r.title,
          content: r.content,
          image_url: r.image_key ? url(r.image_key, r.image_widths) : null,
          created_at: r.created_at,
          taken_on: r.taken_on,
          milestone: r.milestone,
          posted_by: r.posted_by,
          ...(parent ? { audience: r.audience } : {}),
          photos: photos.get(r.id) ?? first(r),
        })),
        next: null,
      });
    } catch {
      await send(req, res, 500, { errors: { message: "Something went wrong. Please try again." } });
    }
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
