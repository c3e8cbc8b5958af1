import { createContext } from "react-router";

/** The connecting client's address, set by the server (server/index.mjs) for rate limiting. */
export const clientAddressContext = createContext<string>("unknown");

/** The CSP nonce of the page rendered for this request, set by entry.server (documentNonce) and named in its policy by the security middleware; empty when no page was rendered. */
export const nonceContext = createContext<string>("");
