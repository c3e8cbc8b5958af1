import { env as readEnv } from "../../server/env.mjs";

export type Config = ReturnType<typeof readEnv>;

/** The app's configuration (environment variables with defaults; see README and .env.example). */
export function config(): Config {
  return readEnv();
}
