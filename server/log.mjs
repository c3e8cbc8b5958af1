// @ts-check
// The server's log (docs/decisions/0056-logs.md): one line per event, each with its time, written by
// pino. LOG_FORMAT=text (the default) is for a person reading a terminal or a journal:
// `[2026-11-26T18:39:12.345Z] INFO: GET / 200 3.1ms`; LOG_FORMAT=json is one JSON object per line
// for a log shipper (`{"level":30,"time":…,"pid":…,"msg":"GET / 200 3.1ms",…}`). Information goes to
// standard output, warnings and errors to standard error, as before. The server's processes send
// everything written with console.* through it too (the app's and the libraries' lines), so a JSON
// log has no stray plain lines. The operator commands (migrate, backup, restore, …) print for a
// person and keep console as it is.
import { format } from "node:util";
import pino from "pino";
import pretty from "pino-pretty";

/**
 * A logger writing `logFormat` lines: information to standard output, warnings and errors to
 * standard error. Synchronous, so the last lines before an exit are not lost.
 * @param {"text" | "json"} logFormat
 */
export function createLogger(logFormat) {
  /** @param {1 | 2} fd */
  const stream = (fd) =>
    logFormat === "json"
      ? pino.destination({ dest: fd, sync: true })
      : pretty({
          destination: fd,
          sync: true,
          colorize: false,
          translateTime: "UTC:yyyy-mm-dd'T'HH:MM:ss.l'Z'",
          ignore: "pid,hostname",
          hideObject: true,
        });
  return pino(
    { base: { pid: process.pid } },
    pino.multistream(
      [
        { level: "info", stream: stream(1) },
        { level: "warn", stream: stream(2) },
      ],
      { dedupe: true },
    ),
  );
}

/** @type {pino.Logger | null} */
let installed = null;

/** The lines Node writes for a process warning: "(node:123) ExperimentalWarning: …" and its hint. */
const NODE_WARNING = /^(\(node:\d+\) \w*Warning: |\(Use `node --trace-warnings)/;

/**
 * Makes `logFormat` this process's log: console.log/info/debug become information, console.warn a
 * warning, console.error an error. Once per process; answers the logger.
 * @param {"text" | "json"} logFormat
 */
export function installLog(logFormat) {
  if (installed) return installed;
  const log = createLogger(logFormat);
  installed = log;
  console.log = console.info = console.debug = (...args) => log.info(format(...args));
  console.warn = (...args) => log.warn(format(...args));
  // Node prints its process warnings (an experimental API a library touches, a deprecation) with
  // console.error: they are warnings, not errors an operator must act on
  console.error = (...args) => {
    const line = format(...args);
    if (NODE_WARNING.test(line)) log.warn(line);
    else log.error(line);
  };
  return log;
}

/** The process's log once installed, else one writing text (tests that start no server). */
export function log() {
  return installed ?? installLog("text");
}
