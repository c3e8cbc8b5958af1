import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Debian's ffmpeg and ffprobe, run as child processes (docs/decisions/0064-video-clips.md). They are
// found through FFMPEG_PATH (ffprobe beside it) or on PATH; without them the server runs and says it
// cannot take videos. A child runs with a lower priority (nice) so pages stay quick while a clip is
// transcoded, is killed past its time limit, and keeps only the tail of what it writes on stderr.

export type VideoTools = { ffmpeg: string; ffprobe: string };

/** An executable file at `file`, or null. */
function executable(file: string): string | null {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** `name` in one of PATH's folders, or null. */
function onPath(name: string, searchPath = process.env.PATH ?? ""): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const found = executable(path.join(dir, name));
    if (found) return found;
  }
  return null;
}

/**
 * ffmpeg and ffprobe, or null when either is missing. `ffmpegPath` (FFMPEG_PATH) names ffmpeg itself;
 * ffprobe is looked for beside it, then on PATH.
 */
export function locateVideoTools(ffmpegPath: string | null, searchPath?: string): VideoTools | null {
  const ffmpeg = ffmpegPath ? executable(ffmpegPath) : onPath("ffmpeg", searchPath);
  if (!ffmpeg) return null;
  const ffprobe = executable(path.join(path.dirname(ffmpeg), "ffprobe")) ?? onPath("ffprobe", searchPath);
  return ffprobe ? { ffmpeg, ffprobe } : null;
}

export type RunOptions = {
  /** Killed (SIGKILL) past this many milliseconds. */
  timeoutMs: number;
  /** Most bytes of stdout kept (ffprobe's JSON); more fails the run. */
  maxStdoutBytes?: number;
  /** Niceness of the child (0 = as the server; 10 for transcoding). */
  nice?: number;
  signal?: AbortSignal;
};

export type RunResult = {
  /** Exit code, or null when killed (time limit, abort). */
  code: number | null;
  stdout: string;
  /** The last few kilobytes the child wrote on stderr: ffmpeg's reason when it fails. */
  stderrTail: string;
  timedOut: boolean;
};

const STDERR_TAIL_BYTES = 4096;

/** Runs `file args` without a shell and collects its output. Never throws for the child's failure. */
export function runTool(file: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], signal: options.signal });
    if (options.nice && child.pid) {
      try {
        os.setPriority(child.pid, options.nice);
      } catch {
        // a lower priority is a courtesy: without the right to lower it the child runs as is
      }
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let tooMuch = false;
    let tail = Buffer.alloc(0);
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (options.maxStdoutBytes !== undefined && outBytes > options.maxStdoutBytes) {
        tooMuch = true;
        child.kill("SIGKILL");
        return;
      }
      out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > STDERR_TAIL_BYTES) tail = tail.subarray(tail.length - STDERR_TAIL_BYTES);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    let settled = false;
    const finish = (code: number | null, why = "") => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        code: tooMuch ? null : code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderrTail: why || tail.toString("utf8"),
        timedOut,
      });
    };
    // a binary that cannot be started, or an abort: a failed run with the reason as its message
    child.on("error", (error) => finish(null, error.message));
    child.on("close", (code) => finish(code));
  });
}
