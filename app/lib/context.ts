import { createContext } from "react-router";

/** The connecting client's address, set by the server (server/index.mjs) for rate limiting. */
export const clientAddressContext = createContext<string>("unknown");

/** The per-request CSP nonce, set by the security middleware and read by entry.server. */
export const nonceContext = createContext<string>("");
