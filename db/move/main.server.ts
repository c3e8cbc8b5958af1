import { run } from "./cli.server";

// Loaded by server/move-to-postgres.mjs through server/run-typescript.mjs. The move runs while this
// module is evaluated: the runner closes as soon as the import returns, and modules the move loads
// on first use (the S3 client) must still find it open.
export const exitCode = await run();
