import { createContext, useContext } from "react";

const NonceContext = createContext<string>("");
export const NonceProvider = NonceContext.Provider;
/** The CSP nonce on the server render; empty in the browser (scripts are already trusted there). */
export function useNonce(): string {
  return useContext(NonceContext);
}
