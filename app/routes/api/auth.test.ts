import { describe, expect, it } from "vitest";
import * as me from "./auth";
import * as login from "./auth-login";
import * as signup from "./auth-signup";
import * as logout from "./auth-logout";
import * as unauthorized from "./auth-unauthorized";
import * as notFound from "./not-found";
import * as magicLink from "./auth-magic-link";
import { db } from "~/lib/db.server";
import { redeemSignInLink } from "~/models/sign-in-links.server";
import { args, context, makeUser, req } from "../../../tests/helpers";
import { resetEnvCache } from "../../../server/env.mjs";

const cookieOf = (res: Response) => res.headers.get("Set-Cookie")!.split(";")[0]!;

describe("POST /api/auth/signup", () => {
  it("creates the account, signs it in and answers the User", async () => {
    const res = await signup.action(
      args(
        req("/api/auth/signup", {
          json: {
            email: " New@Example.com ",
            username: "newbie",
            first_name: "Newt",
            last_name: "Scam",
            password: "secret1",
          },
        }),
      ),
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      id: expect.any(Number),
      username: "newbie",
      email: "new@example.com",
      first_name: "Newt",
      last_name: "Scam",
      user_image_url: null,
    });
    expect(res.headers.get("Set-Cookie")).toMatch(/HttpOnly; SameSite=Lax/);
    const who = await me.loader(args(req("/api/auth", { cookie: cookieOf(res) })));
    expect((await who.json()).username).toBe("newbie");
  });

  it("accepts the older page's body (no names) and stores null names", async () => {
    const form = new FormData();
    form.set("email", "old@example.com");
    form.set("username", "oldpage");
    form.set("password", "secret1");
    const res = await signup.action(args(req("/api/auth/signup", { form })));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ first_name: null, last_name: null });
  });

  it("answers 401 with bare field errors, case-insensitive uniqueness", async () => {
    await makeUser({ email: "taken@example.com", username: "TakenName" });
    const res = await signup.action(
      args(
        req("/api/auth/signup", { json: { email: "TAKEN@example.com", username: "takenname", password: "secret1" } }),
      ),
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      email: ["Email address is already in use."],
      username: ["Username is already in use."],
    });
    const bad = await signup.action(args(req("/api/auth/signup", { json: { email: "x", password: "1" } })));
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({
      email: ["Please provide a valid email."],
      username: ["The username is required."],
      password: ["Password must be between 6 and 128 characters."],
    });
  });
});

describe("POST /api/auth/login", () => {
  it("signs in with the right password and never reveals whether an email exists", async () => {
    const user = await makeUser({ email: "login@example.com" });
    const ok = await login.action(
      args(req("/api/auth/login", { json: { email: "LOGIN@example.com ", password: "secret1" } })),
    );
    expect(ok.status).toBe(200);
    expect((await ok.json()).id).toBe(user.id);

    const wrong = await login.action(
      args(req("/api/auth/login", { json: { email: "login@example.com", password: "wrong12" } })),
    );
    const unknown = await login.action(
      args(req("/api/auth/login", { json: { email: "nobody@example.com", password: "wrong12" } })),
    );
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it("gives the spec's messages for missing fields", async () => {
    const res = await login.action(args(req("/api/auth/login", { json: {} })));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ email: ["Email is required."], password: ["Password is required."] });
  });

  it("bounds guesses per account: after 10 failures from any addresses every address is refused, even with the right password; a sign-in link still gets in", async () => {
    const owner = await makeUser({ email: "victim@example.com" });
    const attempt = (password: string, address: string) =>
      login.action(
        args(req("/api/auth/login", { json: { email: "victim@example.com", password } }), {}, context(address)),
      );
    // ten guesses, each from an address of its own (rotating addresses behind a trusted proxy)
    for (let i = 0; i < 10; i++) expect((await attempt("wrong12", `10.0.0.${i}`)).status).toBe(401);
    // an address that never failed gets no eleventh guess, and no answer about the password
    for (const address of ["10.0.9.9", "2001:db8:9::1", "10.0.0.3"]) {
      const blocked = await attempt("secret1", address);
      expect(blocked.status).toBe(429);
      expect((await blocked.json()).email[0]).toMatch(
        /^Too many attempts\. Try again in \d+ minutes?\. Or log in with a sign-in link sent to your email\.$/,
      );
      expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(14 * 60);
    }
    // the owner still gets in by an emailed link
    await magicLink.action(
      args(req("/api/auth/magic-link", { json: { email: "victim@example.com" } }), {}, context("10.0.9.9")),
    );
    const mail = await db()("mail_messages").where("to_address", "victim@example.com").orderBy("id", "desc").first();
    const token = /\/login\/link\/([A-Za-z0-9_-]{43})/.exec(mail.text_body)![1]!;
    expect(await redeemSignInLink(token)).toMatchObject({ ok: true, user: { id: owner.id } });
  });

  it("counts an IPv6 client's failures with its whole /64 network", async () => {
    process.env.LOGIN_MAX_FAILURES_PER_ADDRESS = "3";
    resetEnvCache();
    try {
      const user = await makeUser();
      const attempt = (email: string, password: string, address: string) =>
        login.action(args(req("/api/auth/login", { json: { email, password } }), {}, context(address)));
      for (let i = 1; i <= 3; i++)
        expect((await attempt(`nobody${i}@example.com`, "wrong12", `2001:db8:1:2::${i}`)).status).toBe(401);
      expect((await attempt(user.email, "secret1", "2001:db8:1:2:ffff::7")).status).toBe(429);
      expect((await attempt(user.email, "secret1", "2001:db8:1:3::1")).status).toBe(200);
    } finally {
      delete process.env.LOGIN_MAX_FAILURES_PER_ADDRESS;
      resetEnvCache();
    }
  });

  it("refuses an address with too many failures over any accounts (LOGIN_MAX_FAILURES_PER_ADDRESS)", async () => {
    process.env.LOGIN_MAX_FAILURES_PER_ADDRESS = "3";
    resetEnvCache();
    try {
      const user = await makeUser();
      const attempt = (email: string, password: string, address: string) =>
        login.action(args(req("/api/auth/login", { json: { email, password } }), {}, context(address)));
      for (let i = 0; i < 3; i++)
        expect((await attempt(`nobody${i}@example.com`, "wrong12", "10.9.9.9")).status).toBe(401);
      expect((await attempt(user.email, "secret1", "10.9.9.9")).status).toBe(429);
      expect((await attempt(user.email, "secret1", "10.9.9.10")).status).toBe(200);
    } finally {
      delete process.env.LOGIN_MAX_FAILURES_PER_ADDRESS;
      resetEnvCache();
    }
  });

  it("counts failures in the database, for every process (no count kept in memory)", async () => {
    await makeUser({ email: "shared@example.com" });
    const attempt = (password: string) =>
      login.action(
        args(req("/api/auth/login", { json: { email: "shared@example.com", password } }), {}, context("10.3.3.3")),
      );
    for (let i = 0; i < 10; i++) expect((await attempt("wrong12")).status).toBe(401);
    expect((await db()("rate_limits").count({ n: "*" }).first())!.n).toBeGreaterThanOrEqual(2);
    // what another process sees: the counters gone, the account opens again
    await db()("rate_limits").delete();
    expect((await attempt("secret1")).status).toBe(200);
  });

  it("refuses the demo account when DEMO is off", async () => {
    await makeUser({ email: "demo-like@example.com" });
    await db()("users").where("email", "demo-like@example.com").update({ is_demo: true });
    process.env.DEMO = "false";
    resetEnvCache();
    try {
      const res = await login.action(
        args(req("/api/auth/login", { json: { email: "demo-like@example.com", password: "secret1" } })),
      );
      expect(res.status).toBe(401);
    } finally {
      process.env.DEMO = "true";
      resetEnvCache();
    }
  });
});

describe("session restore and log out", () => {
  it("GET /api/auth/ answers 401 (C) when signed out", async () => {
    const res = await me.loader(args(req("/api/auth/")));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ errors: { message: "Unauthorized" } });
  });

  it("log out destroys the server session: the old cookie is worthless", async () => {
    await makeUser({ email: "bye@example.com" });
    const res = await login.action(
      args(req("/api/auth/login", { json: { email: "bye@example.com", password: "secret1" } })),
    );
    const cookie = cookieOf(res);
    expect((await me.loader(args(req("/api/auth/", { cookie })))).status).toBe(200);
    const out = await logout.loader(args(req("/api/auth/logout", { cookie })));
    expect(await out.json()).toEqual({ message: "User logged out" });
    expect((await me.loader(args(req("/api/auth/", { cookie })))).status).toBe(401);
  });

  it("GET /api/auth/unauthorized is 401 (C)", async () => {
    const res = await unauthorized.loader(args(req("/api/auth/unauthorized")));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ errors: { message: "Unauthorized" } });
  });
});

describe("unknown /api paths and methods", () => {
  it("answer JSON: 401 signed out first, then 404", async () => {
    const anon = await notFound.loader(args(req("/api/nothing-here")));
    expect(anon.status).toBe(401);
    const user = await makeUser();
    const { cookieFor } = await import("../../../tests/helpers");
    const res = await notFound.action(
      args(req("/api/nothing-here", { method: "DELETE", cookie: await cookieFor(user) })),
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ errors: { message: "Not found" } });
    const wrongMethod = await login.loader(args(req("/api/auth/login")));
    expect(wrongMethod.status).toBe(404);
  });

  it("a malformed JSON body is a 4xx, never a 500", async () => {
    const bad = new Request("http://localhost:3000/api/auth/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{not json",
    });
    const res = await login.action(args(bad));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ errors: { message: "The request body could not be read." } });
  });
});

describe("sign-ups per client address", () => {
  it("answer 429 in the bare envelope past SIGNUP_MAX_PER_ADDRESS, with Retry-After; other addresses go on", async () => {
    process.env.SIGNUP_MAX_PER_ADDRESS = "2";
    resetEnvCache();
    try {
      const attempt = (name: string, address: string) =>
        signup.action(
          args(
            req("/api/auth/signup", { json: { email: `${name}@example.com`, username: name, password: "secret1" } }),
            {},
            context(address),
          ),
        );
      expect((await attempt("limited1", "10.4.4.4")).status).toBe(200);
      // a refused sign-up (taken) counts too: the limit is on attempts, which also probe for accounts
      expect((await attempt("limited1", "10.4.4.4")).status).toBe(401);
      const refused = await attempt("limited2", "10.4.4.4");
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({
        email: ["Too many sign-ups from your network. Try again in 60 minutes."],
      });
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(59 * 60);
      expect((await attempt("limited2", "10.4.4.5")).status).toBe(200);
      // the form's own checks come first: a blocked address still hears what is wrong with its form
      const invalid = await signup.action(args(req("/api/auth/signup", { json: {} }), {}, context("10.4.4.4")));
      expect(invalid.status).toBe(401);
      expect(Object.keys(await invalid.json())).toContain("password");
    } finally {
      delete process.env.SIGNUP_MAX_PER_ADDRESS;
      resetEnvCache();
    }
  });

  it("cannot be used to test email addresses at scale: every 'already in use' answer counts, and an IPv6 client counts with its /64", async () => {
    process.env.SIGNUP_MAX_PER_ADDRESS = "3";
    resetEnvCache();
    try {
      const known = await makeUser();
      const probe = (n: number, address: string) =>
        signup.action(
          args(
            req("/api/auth/signup", {
              json: { email: known.email, username: `probe${n}x${known.id}`, password: "secret1" },
            }),
            {},
            context(address),
          ),
        );
      // one machine stepping through the addresses of its /64: the same count
      const answers = [];
      for (const [n, address] of [
        "2001:db8:7:0::1",
        "2001:db8:7::2",
        "2001:DB8:7:0:a:b:c:d",
        "2001:db8:7::3",
      ].entries())
        answers.push((await probe(n, address)).status);
      expect(answers).toEqual([401, 401, 401, 429]);
      const fourth = await probe(5, "2001:0db8:0007:0000:ffff:ffff:ffff:ffff");
      expect([fourth.status, await fourth.json()]).toEqual([
        429,
        { email: ["Too many sign-ups from your network. Try again in 60 minutes."] },
      ]);
      // the next /64 is another network
      const other = await probe(6, "2001:db8:7:1::1");
      expect([other.status, await other.json()]).toEqual([401, { email: ["Email address is already in use."] }]);
    } finally {
      delete process.env.SIGNUP_MAX_PER_ADDRESS;
      resetEnvCache();
    }
  });
});
