// The public API as a test's client sees it (for the tests that run the real server): one call
// that must succeed, and a new account through POST /api/auth/signup.
import crypto from "node:crypto";

export type ApiInit = { method?: string; cookie?: string; json?: unknown; form?: FormData | Record<string, string> };

/** Calls `base + path` (JSON, a form or urlencoded fields); throws unless 2xx. Answers the JSON and the session cookie set, if any. */
export async function apiCall(base: string, path: string, init: ApiInit = {}) {
  const headers = new Headers();
  if (init.cookie) headers.set("Cookie", init.cookie);
  let body: BodyInit | undefined;
  if (init.json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(init.json);
  } else if (init.form instanceof FormData) body = init.form;
  else if (init.form) body = new URLSearchParams(init.form);
  const res = await fetch(base + path, { method: init.method ?? (body ? "POST" : "GET"), headers, body });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? "POST"} ${path}: ${res.status} ${text}`);
  return { data: JSON.parse(text), cookie: res.headers.getSetCookie()[0]?.split(";")[0] ?? "" };
}

export type ApiAccount = { id: number; email: string; password: string; cookie: string };

/** A new account (`<prefix><random>`, password "secret12"), signed in. */
export async function signUpThroughApi(base: string, prefix: string): Promise<ApiAccount> {
  const tag = crypto.randomBytes(4).toString("hex");
  const account = { email: `${prefix}${tag}@example.com`, username: `${prefix}${tag}`, password: "secret12" };
  const { data, cookie } = await apiCall(base, "/api/auth/signup", { json: { ...account, first_name: "Test", last_name: prefix } });
  return { id: data.id, email: account.email, password: account.password, cookie };
}
