// @ts-check
// The cluster primary's few lines (workers listening, a worker exited, a worker replaced) in the
// log's two formats (server/log.mjs: LOG_FORMAT text or json), written without pino: the primary
// stays up for the server's lifetime, and pino with pino-pretty held about 8 MB of its resident
// memory for three kinds of lines (docs/decisions/0036-lean-processes.md). tests/unit/logs.test.ts
// checks that these lines read as the log's own.
import fs from "node:fs";

/**
 * @param {"text" | "json"} logFormat
 * @returns {{ info: (msg: string) => void, error: (msg: string) => void }}
 */
export function primaryLog(logFormat) {
  /** @param {number} level @param {string} label @param {1 | 2} fd @param {string} msg */
  const write = (level, label, fd, msg) => {
    const time = Date.now();
    const line =
      logFormat === "json"
        ? JSON.stringify({ level, time, pid: process.pid, msg })
        : `[${new Date(time).toISOString()}] ${label}: ${msg}`;
    fs.writeSync(fd, `${line}\n`);
  };
  return { info: (msg) => write(30, "INFO", 1, msg), error: (msg) => write(50, "ERROR", 2, msg) };
}
