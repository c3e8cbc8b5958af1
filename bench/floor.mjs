// @ts-check
// The benchmark's floor: the least a server can do to answer GET /api/kids/{id}/daily_logs.
// node:http, the same SQLite file through the same driver (sqlite3), the same session check
// (signed cookie → sha256 → sessions row) and access rule, the same SQL, written by hand.
import crypto from "node:crypto";
import http from "node:http";
import sqlite3 from "sqlite3";

const db = new sqlite3.Database(process.env.DATABASE_FILE ?? "");
db.exec("PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
const secret = process.env.SESSION_SECRET ?? "";

/** @returns {Promise<any[]>} */
const all = (stmt, params) => new Promise((resolve, reject) => stmt.all(params, (err, rows) => (err ? reject(err) : resolve(rows))));
const sessionStmt = db.prepare("SELECT users.id FROM sessions JOIN users ON users.id = sessions.user_id WHERE sessions.id = ? AND sessions.expires_at > ?");
const kidStmt = db.prepare("SELECT id, user_id FROM kids WHERE id = ?");
const friendStmt = db.prepare("SELECT id FROM friendships WHERE user_low = ? AND user_high = ? AND status = 'accepted'");
const logsStmt = db.prepare(
  `SELECT daily_logs.id, daily_logs.kid_id, daily_logs.title, daily_logs.content, daily_logs.created_at,
          images.key AS image_key, images.widths AS image_widths
     FROM daily_logs LEFT JOIN images ON images.id = daily_logs.image_id
    WHERE daily_logs.kid_id = ? ORDER BY daily_logs.created_at DESC, daily_logs.id DESC`,
);

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

const send = (res, status, body) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
};

http
  .createServer(async (req, res) => {
    try {
      if (req.url === "/health") return send(res, 200, { ok: true });
      const m = /^\/api\/kids\/(\d+)\/daily_logs$/.exec(req.url ?? "");
      if (!m) return send(res, 404, { errors: { message: "Not found" } });
      const token = tokenFrom(req.headers.cookie);
      const hash = token ? crypto.createHash("sha256").update(String(token)).digest("hex") : "";
      const [viewer] = token ? await all(sessionStmt, [hash, new Date().toISOString()]) : [];
      if (!viewer) return send(res, 401, { errors: { message: "Unauthorized" } });
      const [kid] = await all(kidStmt, [Number(m[1])]);
      if (!kid) return send(res, 404, { errors: { message: "Kid not found" } });
      if (kid.user_id !== viewer.id) {
        const [f] = await all(friendStmt, [Math.min(kid.user_id, viewer.id), Math.max(kid.user_id, viewer.id)]);
        if (!f) return send(res, 403, { errors: { message: "You are not authorized" } });
      }
      const rows = await all(logsStmt, [kid.id]);
      send(res, 200, {
        daily_logs: rows.map((r) => ({
          id: r.id,
          kid_id: r.kid_id,
          title: r.title,
          content: r.content,
          image_url: r.image_key ? `/images/${r.image_key}/${r.image_widths.split(",").pop()}.webp` : null,
          created_at: r.created_at,
        })),
      });
    } catch (e) {
      send(res, 500, { errors: { message: "Something went wrong. Please try again." } });
    }
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
