import { run } from "./cli.server";

// Loaded by server/seed.mjs through server/run-typescript.mjs. The seed runs while this module is
// evaluated: the runner closes as soon as the import returns, and modules the seed loads on first
// use (the S3 client, with STORAGE=s3) must still find it open.
export const exitCode = await run().then(
  () => 0,
  (error: unknown) => {
    console.error(`The demo data could not be seeded: ${error instanceof Error ? error.message : error}`);
    return 1;
  },
);
