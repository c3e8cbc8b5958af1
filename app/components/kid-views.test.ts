import { describe, expect, it } from "vitest";
import type { ShouldRevalidateFunctionArgs } from "react-router";
import { confirmStepKeepsData } from "./kid-views";

// The kid pages' shouldRevalidate: a confirm step opening or closing reloads nothing.
const args = (from: string, to: string, formMethod?: "POST"): ShouldRevalidateFunctionArgs =>
  ({
    currentUrl: new URL(from, "http://x"),
    nextUrl: new URL(to, "http://x"),
    formMethod,
    defaultShouldRevalidate: true,
  }) as ShouldRevalidateFunctionArgs;

describe("confirmStepKeepsData", () => {
  it("keeps the data when only the confirm step opens or closes", () => {
    expect(confirmStepKeepsData(args("/my-kids-list", "/my-kids-list?confirm=remove-kid&kidId=3"))).toBe(false);
    expect(confirmStepKeepsData(args("/kids/3/dailyLogs?confirm=delete&momentId=9", "/kids/3/dailyLogs"))).toBe(false);
  });
  it("reloads as usual for a form, another page or another query", () => {
    expect(confirmStepKeepsData(args("/my-kids-list", "/my-kids-list?confirm=remove-kid&kidId=3", "POST"))).toBe(true);
    expect(confirmStepKeepsData(args("/kids/3/dailyLogs", "/kids/4/dailyLogs"))).toBe(true);
    expect(confirmStepKeepsData(args("/kids/3/dailyLogs", "/kids/3/dailyLogs?before=20"))).toBe(true);
  });
});
