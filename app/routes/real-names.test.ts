import { beforeEach, describe, expect, it } from "vitest";
import * as signupPage from "./signup";
import * as invitePage from "./invite";
import * as settings from "./settings";
import * as apiSignup from "./api/auth-signup";
import * as apiLogin from "./api/auth-login";
import * as apiAccount from "./api/users-current";
import * as apiPassword from "./api/users-current-password";
import { resetLimits } from "~/lib/limits.server";
import { getAccount } from "~/models/account.server";
import { createInvitation } from "~/models/invitations.server";
import { getUserWithPasswordByEmail } from "~/models/users.server";
import { checkCredentials } from "~/web/auth.server";
import { args, context, makeUser, postForm, req, sessionCookieOf } from "../../tests/helpers";

// Real people's names and long passwords (docs/decisions/0061-real-names-and-long-passwords.md):
// the same rule on every page form and on /api. Pages as a browser without JavaScript posts them.

type Answer = { data?: { result?: { error?: Record<string, string[]> } }; init?: { status?: number } };
const statusOf = (a: Answer | Response) => (a instanceof Response ? a.status : a.init?.status);
const cookieOf = sessionCookieOf;

/** 64 characters, as a password manager makes them. */
const LONG = "tW9#qL2$vB7!xR4@mK8%zP3^cN6&hJ1*fD5(gS0)yU-aE+iO=lQ[rT]wY{uI}oP;";
const CHARS_128 = `${"pässwörd ".repeat(14)}12`;

beforeEach(() => resetLimits());

describe("names of one and two letters, and long passwords", () => {
  it("sign up on the page as Jo Li with a 64-character password, then log in with it", async () => {
    expect(LONG).toHaveLength(64);
    const form = {
      variant: "modal",
      first_name: "Jo",
      last_name: "Li",
      username: "joli",
      email: "jo.li@example.com",
      password: LONG,
      confirmPassword: LONG,
    };
    const res = await postForm<Answer>(signupPage, "/signup", form);
    expect(statusOf(res)).toBe(302);
    const jo = await checkCredentials("jo.li@example.com", LONG, "10.9.0.1");
    expect(jo).toMatchObject({ first_name: "Jo", last_name: "Li" });
    await expect(checkCredentials("jo.li@example.com", LONG.slice(0, 63), "10.9.0.1")).rejects.toMatchObject({
      status: 401,
    });
  });

  it("a relative who joins as Bo Li saves her details and her password without renaming herself", async () => {
    const parent = await makeUser();
    const invite = await createInvitation(parent, {}, "https://moments.test");
    if (!invite.ok) throw new Error("refused");
    const path = new URL(invite.url).pathname;
    const joined = await postForm<Answer>(
      invitePage,
      path,
      { name: "Bo Li", email: "bo.li@example.com", password: "" },
      undefined,
      { token: path.split("/").pop()! },
    );
    expect(statusOf(joined)).toBe(303);
    const cookie = cookieOf(joined as Response);
    const bo = (await getUserWithPasswordByEmail("bo.li@example.com"))!;
    expect(bo).toMatchObject({ first_name: "Bo", last_name: "Li" });

    const details = { intent: "profile", first_name: "Bo", last_name: "Li", username: bo.username, email: bo.email };
    const saved = await postForm<Answer>(settings, "/settings", details, cookie);
    expect(statusOf(saved)).toBe(303);
    const password = await postForm<Answer>(
      settings,
      "/settings",
      { intent: "password", password: LONG, confirmPassword: LONG },
      cookie,
    );
    expect(statusOf(password)).toBe(303);
    await expect(checkCredentials("bo.li@example.com", LONG, "10.9.0.2")).resolves.toMatchObject({ id: bo.id });

    // a name of one letter in another script, and the refusals on the field
    const one = await postForm<Answer>(settings, "/settings", { ...details, first_name: "李", last_name: "" }, cookie);
    expect(statusOf(one)).toBe(303);
    expect(await getAccount(bo.id)).toMatchObject({ first_name: "李", last_name: null });
    const bad = (await postForm<Answer>(
      settings,
      "/settings",
      { ...details, first_name: "B0", last_name: "L".repeat(51) },
      cookie,
    )) as Answer;
    expect(bad.init?.status).toBe(400);
    expect(bad.data?.result?.error).toEqual({
      first_name: ["First name can contain only letters, spaces, hyphens, apostrophes and periods."],
      last_name: ["Last name must be 50 characters or fewer."],
    });
    expect(await getAccount(bo.id)).toMatchObject({ first_name: "李", last_name: null });
  });

  it("on /api: sign up as A Li with a 128-character password, log in, rename to names of any script", async () => {
    expect([...CHARS_128]).toHaveLength(128);
    const signup = await apiSignup.action(
      args(
        req("/api/auth/signup", {
          json: { first_name: "A", last_name: "Li", username: "ali", email: "a.li@example.com", password: CHARS_128 },
        }),
        {},
        context("10.9.0.3"),
      ),
    );
    expect(signup.status).toBe(200);
    expect(await signup.json()).toMatchObject({ first_name: "A", last_name: "Li" });
    const login = await apiLogin.action(
      args(
        req("/api/auth/login", { json: { email: "a.li@example.com", password: CHARS_128 } }),
        {},
        context("10.9.0.3"),
      ),
    );
    expect(login.status).toBe(200);
    const cookie = login.headers.get("Set-Cookie")!.split(";")[0]!;
    const put = (path: string, json: Record<string, unknown>) =>
      (path.endsWith("password") ? apiPassword : apiAccount).action(args(req(path, { method: "PUT", cookie, json })));

    const renamed = await put("/api/users/current", {
      first_name: " Zoe\u0308 ",
      last_name: "Nguyễn-O’Brien",
      username: "ali",
      email: "a.li@example.com",
    });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ first_name: "Zoë", last_name: "Nguyễn-O’Brien" });

    const refused = await put("/api/users/current", {
      first_name: "Zoë\u0000",
      last_name: "x".repeat(51),
      username: "ali",
      email: "a.li@example.com",
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      errors: {
        first_name: ["First name cannot contain line breaks or control characters."],
        last_name: ["Last name must be 50 characters or fewer."],
      },
    });
    const tooLong = `${CHARS_128}x`;
    const password = await put("/api/users/current/password", {
      current_password: CHARS_128,
      password: tooLong,
      confirmPassword: tooLong,
    });
    expect(password.status).toBe(400);
    expect(await password.json()).toEqual({ errors: { password: ["Password must be between 6 and 128 characters."] } });
  });
});
