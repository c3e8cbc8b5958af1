import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./password.server";

// scrypt takes the whole password (docs/decisions/0004-*, 0061-*): no 72-byte cut as bcrypt makes,
// so long passwords that differ only at their end are different passwords.
describe("long passwords", () => {
  it("a 128-character password verifies, and one differing only in its last character does not", async () => {
    const long = `${"ü".repeat(100)}${"x".repeat(27)}`;
    const stored = await hashPassword(`${long}1`);
    expect(await verifyPassword(`${long}1`, stored)).toBe(true);
    expect(await verifyPassword(`${long}2`, stored)).toBe(false);
  });
  it("a hash stored before longer passwords were allowed still verifies", async () => {
    // "secret12" as hashPassword stored it (a fixed salt of sevens): any change to how a password
    // is fed to scrypt (a pre-hash, another normalisation) must keep this one verifying
    const stored = "scrypt$32768$8$1$BwcHBwcHBwcHBwcHBwcHBw$XBX50Wog9UOsZGoTnTG3pGQLaz93B-ut2MaXqT9MNBU";
    expect(await verifyPassword("secret12", stored)).toBe(true);
    expect(await verifyPassword("secret13", stored)).toBe(false);
  });
});
