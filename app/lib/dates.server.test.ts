import { afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "../../server/env.mjs";
import { today } from "./dates.server";

describe("today() (worked out at most once a second per zone)", () => {
  const zone = process.env.TIME_ZONE;
  afterEach(() => {
    vi.useRealTimers();
    if (zone === undefined) delete process.env.TIME_ZONE;
    else process.env.TIME_ZONE = zone;
    resetEnvCache();
  });

  it("follows the clock across midnight in the configured zone, and a change of zone at once", () => {
    vi.useFakeTimers();
    process.env.TIME_ZONE = "America/New_York";
    resetEnvCache();
    vi.setSystemTime(new Date("2026-03-01T04:59:59.900Z")); // 23:59:59.9 on 28 February in New York
    expect(today()).toBe("2026-02-28");
    expect(today()).toBe("2026-02-28");
    vi.setSystemTime(new Date("2026-03-01T05:00:00.000Z")); // midnight there
    expect(today()).toBe("2026-03-01");
    process.env.TIME_ZONE = "Pacific/Kiritimati"; // UTC+14: already 1 March, 19:00
    resetEnvCache();
    expect(today()).toBe("2026-03-01");
    process.env.TIME_ZONE = "Pacific/Pago_Pago"; // UTC-11: still 28 February, 18:00
    resetEnvCache();
    expect(today()).toBe("2026-02-28");
  });
});
