// The name of the cookie that asks the pages to offer a passkey once (app/web/auth.server.ts sets
// it, app/components/passkeys.tsx reads and clears it): one name for the server and the browser.
export const PASSKEY_OFFER_COOKIE = "sm_passkey_offer";
