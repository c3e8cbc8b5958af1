// @ts-check
// `npm run db:seed`: (re)creates the demo accounts and their data; never touches other accounts.
import { migrate } from "./migrate.mjs";
import { runTypeScript } from "./run-typescript.mjs";

const { knex } = await migrate();
await knex.destroy();
process.exit(await runTypeScript("/db/seed/main.server.ts"));
