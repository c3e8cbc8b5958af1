// The sign-up page past the per-address limit (docs/decisions/0018-shared-limits-and-job-leases.md).
import { describe, expect, it } from "vitest";
import * as signupPage from "./signup";
import { args, context, req } from "../../tests/helpers";
import { resetEnvCache } from "../../server/env.mjs";

type Answer = {
  type?: string;
  data?: { result: { error?: Record<string, string[] | null> } };
  init?: { status?: number; headers?: HeadersInit } | null;
};

describe("the Sign Up page", () => {
  it("past SIGNUP_MAX_PER_ADDRESS answers 429 with the message under the email field, on both forms", async () => {
    process.env.SIGNUP_MAX_PER_ADDRESS = "1";
    resetEnvCache();
    try {
      const post = async (name: string, variant: "page" | "modal", address: string) => {
        const form: Record<string, string> = {
          variant,
          email: `${name}@example.com`,
          username: name,
          password: "secret1",
          confirmPassword: "secret1",
        };
        if (variant === "modal") Object.assign(form, { first_name: "Page", last_name: "Limit" });
        try {
          return (await signupPage.action(args(req("/signup", { form }), {}, context(address)))) as Answer | Response;
        } catch (thrown) {
          return thrown as Response;
        }
      };
      const first = await post("pagelimit1", "page", "10.6.6.6");
      expect(first instanceof Response ? first.status : first.init?.status).toBe(302);
      for (const variant of ["page", "modal"] as const) {
        const refused = (await post(`pagelimit${variant}`, variant, "10.6.6.6")) as Answer;
        expect(refused.init?.status).toBe(429);
        expect(new Headers(refused.init?.headers).get("Retry-After")).toMatch(/^\d+$/);
        expect(refused.data!.result.error).toEqual({
          email: ["Too many sign-ups from your network. Try again in 60 minutes."],
        });
      }
      const elsewhere = await post("pagelimit2", "modal", "10.6.6.7");
      expect(elsewhere instanceof Response ? elsewhere.status : elsewhere.init?.status).toBe(302);
    } finally {
      delete process.env.SIGNUP_MAX_PER_ADDRESS;
      resetEnvCache();
    }
  });
});
