import { spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../../..");

/** This process's environment with `env` over it (a value `undefined` removes that variable; DATABASE_URL is empty unless given). */
export function commandEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: "" };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete childEnv[k];
    else childEnv[k] = v;
  }
  return childEnv;
}

/**
 * Runs `server/<script>` (npm run backup, restore, db:migrate) as a child process on SQLite, with
 * `env` over this process's environment (a value `undefined` removes that variable); `umask`, e.g.
 * "000", runs it under that umask. Answers its exit code and everything it printed.
 */
export function runServerScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  opts: { umask?: string } = {},
): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const childEnv = commandEnv(env);
    const command = [path.join(root, "server", script), ...args];
    const child = opts.umask
      ? spawn("/bin/sh", ["-c", `umask ${opts.umask} && exec "$0" "$@"`, process.execPath, ...command], {
          cwd: root,
          env: childEnv,
          stdio: ["ignore", "pipe", "pipe"],
        })
      : spawn(process.execPath, command, { cwd: root, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
  });
}
