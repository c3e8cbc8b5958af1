import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { SignupSchema } from "./auth";
import { PasswordSchema, profileSchema } from "./account";
import { JoinSchema } from "./invite";
import { joinName, password, personName, splitFullName } from "./people";

const first = personName("First name", "First name is required.");
const problems = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

describe("a person's name", () => {
  it("takes names of one and two letters, and of any script", () => {
    for (const name of [
      "A",
      "Jo",
      "Li",
      "Bo",
      "Zoë",
      "José",
      "Łucja",
      "李",
      "王小明",
      "محمد",
      "Иван",
      "Ngọc",
      "ಕೃಷ್ಣ",
      "O'Brien",
      "Jean-Luc",
      "Mary Ann",
      "St. John",
      "D’Angelo",
    ]) {
      expect(first.safeParse(name)).toEqual({ success: true, data: name.normalize("NFC") });
    }
  });
  it("is NFC, trimmed, with one space between words", () => {
    expect(first.parse("  Zoe\u0308  ")).toBe("Zoë");
    expect(first.parse("Zoe\u0308").length).toBe(3);
    expect(first.parse("Mary \u00a0 Ann")).toBe("Mary Ann");
  });
  it("is 1 to 50 characters, counted as characters", () => {
    expect(first.parse("é".repeat(50))).toHaveLength(50);
    expect(first.parse("e\u0301".repeat(50))).toHaveLength(50); // NFC first: 50 characters, not 100
    expect(problems(first, "a".repeat(51))).toEqual(["First name must be 50 characters or fewer."]);
    expect(problems(first, "   ")).toEqual(["First name is required."]);
    expect(problems(first, undefined)).toEqual(["First name is required."]);
  });
  it("refuses control characters, digits, symbols and names without a letter", () => {
    expect(problems(first, "Al\nBcc: x")).toEqual(["First name cannot contain line breaks or control characters."]);
    expect(problems(first, "Al\u0000")).toEqual(["First name cannot contain line breaks or control characters."]);
    expect(problems(first, "Al\tBo")).toEqual(["First name cannot contain line breaks or control characters."]);
    for (const bad of ["R2D2", "<b>Al</b>", "Al 🙂", "--", "'"]) {
      expect(problems(first, bad)).toEqual([
        "First name can contain only letters, spaces, hyphens, apostrophes and periods.",
      ]);
    }
  });
  it("is the same rule in sign-up, settings and joining", () => {
    const signup = SignupSchema.safeParse({
      first_name: "Jo",
      last_name: "Li",
      username: "joli",
      email: "jo@example.com",
      password: "secret1",
      confirmPassword: "secret1",
    });
    expect(signup.success).toBe(true);
    const ProfileSchema = profileSchema();
    expect(
      ProfileSchema.parse({ first_name: "Bo", last_name: "Li", username: "boli", email: "bo@example.com" }),
    ).toMatchObject({
      first_name: "Bo",
      last_name: "Li",
    });
    expect(
      problems(ProfileSchema, { first_name: "B0", last_name: "", username: "boli", email: "bo@example.com" }),
    ).toEqual(["First name can contain only letters, spaces, hyphens, apostrophes and periods."]);
    // a name saved before the rule is kept as it is, and only that one
    const legacy = profileSchema({ first_name: "R2D2", last_name: null });
    const details = { last_name: "", username: "boli", email: "bo@example.com" };
    expect(legacy.parse({ ...details, first_name: "R2D2" }).first_name).toBe("R2D2");
    expect(problems(legacy, { ...details, first_name: "R2D3" })).toEqual([
      "First name can contain only letters, spaces, hyphens, apostrophes and periods.",
    ]);
    expect(JoinSchema.parse({ name: " Bo  Li ", email: "bo@example.com" }).name).toBe("Bo Li");
  });
});

describe("the join form's one name", () => {
  it("splits at the first space, each part at most 50 characters", () => {
    expect(splitFullName("Ana María López")).toEqual({ first_name: "Ana", last_name: "María López" });
    expect(splitFullName("Li")).toEqual({ first_name: "Li", last_name: null });
    expect(joinName.parse(`${"a".repeat(50)} ${"b".repeat(50)}`)).toHaveLength(101);
    expect(problems(joinName, "a".repeat(51))).toEqual([
      "Your first name and your last name can each be at most 50 characters.",
    ]);
    expect(problems(joinName, "a".repeat(102))).toEqual(["Your name must be 101 characters or fewer."]);
  });
});

describe("a password", () => {
  const pw = password("The password is required.");
  it("is 6 to 128 characters, any characters, never trimmed", () => {
    expect(pw.parse(" ".repeat(6))).toBe("      ");
    expect(pw.parse("x".repeat(128))).toHaveLength(128);
    expect(pw.parse("🔑".repeat(128))).toHaveLength(256); // 128 characters (code points)
    expect(problems(pw, "x".repeat(129))).toEqual(["Password must be between 6 and 128 characters."]);
    expect(problems(pw, "12345")).toEqual(["Password must be between 6 and 128 characters."]);
  });
  it("of 64 characters from a password manager is taken on every form", () => {
    const long = "Kx9#mP2$vL8@nQ4&wR7!tY3^zU6*bN1%cJ5(dH0)eG-fA+gS=hD?iF<jK>lZ;oX:p".slice(0, 64);
    expect(long).toHaveLength(64);
    expect(PasswordSchema.safeParse({ password: long, confirmPassword: long }).success).toBe(true);
    expect(JoinSchema.safeParse({ name: "Jo", email: "jo@example.com", password: long }).success).toBe(true);
  });
});
