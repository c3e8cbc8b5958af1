import { spawn } from "node:child_process";
import path from "node:path";
import { commandEnv } from "./server-script";

const root = path.resolve(import.meta.dirname, "../../..");

/**
 * Runs `npm run <script> -- …args` in the project, as README tells an operator to, with `env` over
 * this process's environment (a value `undefined` removes that variable; DATABASE_URL is empty
 * unless given). Answers its exit code and everything it printed.
 */
export function runNpmScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", script, ...(args.length ? ["--", ...args] : [])], {
      cwd: root,
      env: commandEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
  });
}
