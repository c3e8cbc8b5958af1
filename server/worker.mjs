// @ts-check
// One of the workers of `npm start` (server/supervise.sh): the server on the shared port
// (SO_REUSEPORT: each worker listens on it and the kernel spreads the connections), the database
// already prepared by server/prepare.mjs. SM_WORKER is its place's number (only the first place's
// first worker says where the server runs), SM_REPLACES the worker it replaces, SM_READY_FILE where
// it writes its process id once it listens (the supervisor's "N workers listening").
import fs from "node:fs";
import { startServer } from "./index.mjs";
import { startFailure } from "./preflight.mjs";

const replaces = process.env.SM_REPLACES ?? "";
try {
  await startServer({ worker: true, reusePort: true, quiet: process.env.SM_WORKER !== "1" || replaces !== "" });
} catch (error) {
  console.error(startFailure(error));
  process.exit(1);
}
if (replaces) console.log(`[cluster] worker ${process.pid} took the place of ${replaces}`);
if (process.env.SM_READY_FILE) fs.appendFileSync(process.env.SM_READY_FILE, `${process.pid}\n`);
