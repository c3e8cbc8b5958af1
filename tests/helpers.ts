// Helpers for integration tests: real users, real sessions, real Request objects.
import crypto from "node:crypto";
import { parseWithZod } from "@conform-to/zod/v4";
import { RouterContextProvider } from "react-router";
import { startSession } from "../app/web/auth.server";
import { clientAddressContext } from "../app/lib/context";
import { hashPassword } from "../app/lib/password.server";
import { getUserById, insertUser, type User } from "../app/models/users.server";
import { db } from "../app/lib/db.server";

export const BASE = "http://localhost:3000";

let counter = 0;
// The hash of "secret1", made once per test file by the app's own hashPassword at the production
// cost (scrypt N=2^15, app/lib/password.server.ts) and stored for every user made here: one scrypt
// per file instead of one per user (docs/decisions/0051-test-kit-and-a-faster-suite.md). Sign-up
// itself, with its own hash, is tested through createUser and the routes.
let secret1Hash: Promise<string> | undefined;

/** A new user with a unique email and username (password "secret1"). */
export async function makeUser(
  overrides: Partial<{ first_name: string | null; last_name: string | null; username: string; email: string }> = {},
): Promise<User> {
  counter += 1;
  const tag = `${counter}${crypto.randomBytes(3).toString("hex")}`;
  secret1Hash ??= hashPassword("secret1");
  const id = await insertUser(db(), {
    email: overrides.email ?? `user${tag}@example.com`,
    username: overrides.username ?? `user${tag}`,
    first_name: overrides.first_name === undefined ? `First${tag}` : overrides.first_name,
    last_name: overrides.last_name === undefined ? `Last${tag}` : overrides.last_name,
    password_hash: await secret1Hash,
  });
  const user = await getUserById(id);
  if (!user) throw new Error(`user ${id} vanished after insert`);
  return user;
}

/** The Cookie header value of a fresh session for `user`. */
export async function cookieFor(user: Pick<User, "id">): Promise<string> {
  const setCookie = await startSession(new Request(BASE), user);
  return setCookie.split(";")[0]!;
}

type Init = {
  method?: string;
  cookie?: string;
  json?: unknown;
  form?: Record<string, string> | FormData;
  headers?: Record<string, string>;
};

/** A request's body from `json` or `form`, its Content-Type (and the cookie) set on `headers`. */
export function bodyOf(init: Pick<Init, "cookie" | "json" | "form">, headers: Headers): BodyInit | undefined {
  if (init.cookie) headers.set("Cookie", init.cookie);
  if (init.json !== undefined) {
    headers.set("Content-Type", "application/json");
    return JSON.stringify(init.json);
  }
  if (init.form instanceof FormData) return init.form;
  if (init.form) {
    headers.set("Content-Type", "application/x-www-form-urlencoded");
    return new URLSearchParams(init.form);
  }
  return undefined;
}

/** A same-origin request as a browser would send it. */
export function req(path: string, init: Init = {}): Request {
  const headers = new Headers(init.headers);
  const body = bodyOf(init, headers);
  return new Request(BASE + path, { method: init.method ?? (body ? "POST" : "GET"), headers, body });
}

export function context(address = "127.0.0.1"): RouterContextProvider {
  const ctx = new RouterContextProvider();
  ctx.set(clientAddressContext, address);
  return ctx;
}

/** Arguments for a loader or action of a route module. */
export function args(request: Request, params: Record<string, string> = {}, ctx = context()) {
  return { request, params, context: ctx, unstable_pattern: "", pattern: "" } as never;
}

/** How many SQL queries `fn` runs (knex's "query" event: the read connection's prepared statements included). */
export async function countQueries(fn: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const listener = () => {
    n += 1;
  };
  db().on("query", listener);
  try {
    await fn();
  } finally {
    db().off("query", listener);
  }
  return n;
}

/**
 * The status of what a route's loader or action returned: a Response's own, else data()'s
 * (`init.status`, 200 when unset), else 200 (a plain object).
 */
export function statusOf(result: unknown): number {
  if (result instanceof Response) return result.status;
  return (result as { init?: { status?: number } | null } | null)?.init?.status ?? 200;
}

/** The field errors of a refused form: the conform result an action returns as data({ result }, 400). */
export function formErrorsOf(result: unknown): Record<string, string[] | null> {
  return (result as { data: { result: { error: Record<string, string[] | null> } } }).data.result.error;
}

/** `values` as the FormData a browser would send. */
export function formData(values: Record<string, string | File>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(values)) fd.set(k, v);
  return fd;
}

/** What a form schema refuses in `values`, field by field (null: accepted), as conform parses a submission. */
export function schemaErrorsOf(
  schema: Parameters<typeof parseWithZod>[1]["schema"],
  values: Record<string, string | File>,
) {
  const submission = parseWithZod(formData(values), { schema });
  return submission.status === "success" ? null : submission.error;
}

/**
 * What a route module's action answered to `form` posted to `path` as a browser without JavaScript
 * posts it: its return value, or the Response it threw (a redirect).
 */
export async function postForm<T>(
  mod: { action: (a: never) => Promise<unknown> },
  path: string,
  form: Record<string, string>,
  cookie?: string,
  params: Record<string, string> = {},
): Promise<T | Response> {
  try {
    return (await mod.action(args(req(path, { cookie, form }), params) as never)) as T;
  } catch (thrown) {
    return thrown as Response;
  }
}

/** The `sm_session=…` pair a response sets, for the Cookie header of the next request. */
export function sessionCookieOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith("sm_session="))!
    .split(";")[0]!;
}
