import { describe, expect, it } from "vitest";
import { apiSignupSchema, LegacySignupSchema, LoginSchema, SignupSchema } from "./auth";

function messages(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  const out: Record<string, string[]> = {};
  for (const i of result.error?.issues ?? []) (out[String(i.path[0])] ??= []).push(i.message);
  return out;
}

describe("log-in form", () => {
  it("requires email and password with the spec's words", () => {
    expect(messages(LoginSchema.safeParse({}))).toEqual({
      email: ["Email is required."],
      password: ["Password is required."],
    });
  });
  it("wants an @ and 6 to 128 characters", () => {
    expect(messages(LoginSchema.safeParse({ email: "nope", password: "12345" }))).toEqual({
      email: ["Please provide a valid email."],
      password: ["Password must be between 6 and 128 characters."],
    });
    expect(LoginSchema.safeParse({ email: "a@b", password: "x".repeat(128) }).success).toBe(true);
    expect(messages(LoginSchema.safeParse({ email: "a@b", password: "x".repeat(129) })).password).toEqual([
      "Password must be between 6 and 128 characters.",
    ]);
  });
  it("trims and lower-cases the email", () => {
    const r = LoginSchema.safeParse({ email: "  Demo@AA.io ", password: "password" });
    expect(r.success && r.data.email).toBe("demo@aa.io");
  });
});

describe("sign-up modal", () => {
  it("has every required message", () => {
    expect(messages(SignupSchema.safeParse({}))).toEqual({
      first_name: ["First name is required."],
      last_name: ["Last name is required."],
      username: ["The username is required."],
      email: ["The email is required."],
      password: ["The password is required."],
      confirmPassword: ["The confirmPassword is required."],
    });
  });
  it("checks lengths and the confirmation", () => {
    const m = messages(
      SignupSchema.safeParse({
        first_name: "Al2",
        last_name: "B".repeat(51),
        username: "ab",
        email: "x",
        password: "secret1",
        confirmPassword: "secret2",
      }),
    );
    expect(m).toEqual({
      first_name: ["First name can contain only letters, spaces, hyphens, apostrophes and periods."],
      last_name: ["Last name must be 50 characters or fewer."],
      username: ["Username must be between 3 and 30 characters."],
      email: ["Please provide a valid email."],
      confirmPassword: ["Confirm Password field match the Password."],
    });
  });
});

describe("older sign-up page", () => {
  it("uses its own confirmation wording", () => {
    const m = messages(
      LegacySignupSchema.safeParse({ email: "a@b.c", username: "abc", password: "secret1", confirmPassword: "other" }),
    );
    expect(m).toEqual({ confirmPassword: ["Confirm Password field must be the same as the Password field."] });
  });
});

describe("API sign-up", () => {
  it("accepts no names at all, but a name that is sent must be valid", () => {
    const bare = { email: "a@b.c", username: "abc", password: "secret1" };
    expect(apiSignupSchema(bare).safeParse(bare).success).toBe(true);
    const half = { ...bare, first_name: "J0" };
    expect(messages(apiSignupSchema(half).safeParse(half))).toEqual({
      first_name: ["First name can contain only letters, spaces, hyphens, apostrophes and periods."],
      last_name: ["Last name is required."],
    });
  });
});
