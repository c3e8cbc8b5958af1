import { env as readEnv, noteListeningPort, siteOrigin as siteOriginOf } from "../../server/env.mjs";

export type Config = ReturnType<typeof readEnv>;

/** The app's configuration (environment variables with defaults; see README and .env.example). */
export function config(): Config {
  return readEnv();
}

/**
 * The site's origin, the start of every absolute URL the app writes (links in mail, in API
 * answers): ORIGIN, or this server on localhost. Never a request's Host: a link made for a request
 * addressed to another name would hand its token to that name (docs/decisions/0038-the-site-address.md).
 */
export function siteOrigin(): string {
  return siteOriginOf(readEnv());
}

/** For the server (server/index.mjs): the port it listens on, part of the site's origin without ORIGIN. */
export { noteListeningPort };
