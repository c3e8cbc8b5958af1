import { describe, expect, it } from "vitest";
import {
  ageOn,
  ageOnMomentText,
  ageText,
  daysInMonth,
  defaultTakenOn,
  formatAge,
  formatCalendarDate,
  formatInstantDate,
  formatShortAge,
  isRealDate,
  parseIsoDate,
  takenOnProblem,
  todayInZone,
} from "./dates";

describe("ageOn / formatAge", () => {
  it("writes ages grammatically, singular and plural", () => {
    expect(ageText("2023-06-03", "2024-06-06")).toBe("1 year, 0 months, 3 days");
    expect(ageText("2022-05-05", "2024-06-06")).toBe("2 years, 1 month, 1 day");
    expect(formatAge({ years: 0, months: 2, days: 0 })).toBe("0 years, 2 months, 0 days");
  });

  it("born today is 0 years, 0 months, 0 days; a birth date after today has no age", () => {
    expect(ageText("2024-06-06", "2024-06-06")).toBe("0 years, 0 months, 0 days");
    expect(ageOn("2024-06-07", "2024-06-06")).toBeNull();
    expect(ageText("2024-06-07", "2024-06-06")).toBe("");
  });

  it("handles month ends: a shorter month's last day is the monthly anniversary", () => {
    // born 31 January: one month old on the last day of February
    expect(ageText("2023-01-31", "2023-02-27")).toBe("0 years, 0 months, 27 days");
    expect(ageText("2023-01-31", "2023-02-28")).toBe("0 years, 1 month, 0 days");
    expect(ageText("2023-01-31", "2023-03-01")).toBe("0 years, 1 month, 1 day");
    expect(ageText("2023-01-31", "2023-03-30")).toBe("0 years, 1 month, 30 days");
    expect(ageText("2023-01-31", "2023-03-31")).toBe("0 years, 2 months, 0 days");
    expect(ageText("2024-01-31", "2024-02-29")).toBe("0 years, 1 month, 0 days");
    // born 30 April, across the end of May (31 days)
    expect(ageText("2023-04-30", "2023-05-31")).toBe("0 years, 1 month, 1 day");
    // across a year end
    expect(ageText("2023-12-31", "2024-01-01")).toBe("0 years, 0 months, 1 day");
    expect(ageText("2023-12-15", "2024-12-14")).toBe("0 years, 11 months, 29 days");
  });

  it("born 29 February: birthday on 28 February in common years, 29 in leap years", () => {
    expect(ageText("2024-02-29", "2025-02-27")).toBe("0 years, 11 months, 29 days");
    expect(ageText("2024-02-29", "2025-02-28")).toBe("1 year, 0 months, 0 days");
    expect(ageText("2024-02-29", "2025-03-01")).toBe("1 year, 0 months, 1 day");
    expect(ageText("2024-02-29", "2028-02-28")).toBe("3 years, 11 months, 30 days");
    expect(ageText("2024-02-29", "2028-02-29")).toBe("4 years, 0 months, 0 days");
    expect(ageText("2024-02-29", "2024-03-29")).toBe("0 years, 1 month, 0 days");
  });

  it("counts days across long spans exactly", () => {
    expect(ageOn("1926-04-21", "2022-09-08")).toEqual({ years: 96, months: 4, days: 18 });
    expect(ageOn("2000-02-29", "2100-02-28")).toEqual({ years: 100, months: 0, days: 0 }); // 2100 is not leap
  });
});

describe("todayInZone", () => {
  const instant = new Date("2024-03-01T03:30:00Z"); // early morning in London, still evening in California

  it("takes the calendar date in the given zone, so a zone west of UTC is not a day ahead", () => {
    expect(todayInZone("UTC", instant)).toBe("2024-03-01");
    expect(todayInZone("America/Los_Angeles", instant)).toBe("2024-02-29");
    expect(todayInZone("Asia/Tokyo", new Date("2024-02-29T16:00:00Z"))).toBe("2024-03-01");
  });

  it("gives a kid born on 1 March no age yet in California at that instant (the original was a day early)", () => {
    const today = todayInZone("America/Los_Angeles", instant);
    expect(ageOn("2024-03-01", today)).toBeNull();
    expect(ageText("2023-03-01", today)).toBe("0 years, 11 months, 28 days");
    expect(ageText("2023-03-01", todayInZone("UTC", instant))).toBe("1 year, 0 months, 0 days");
  });
});

describe("calendar dates", () => {
  it("knows which dates are real", () => {
    expect(isRealDate({ year: 2023, month: 2, day: 29 })).toBe(false);
    expect(isRealDate({ year: 2024, month: 2, day: 29 })).toBe(true);
    expect(isRealDate({ year: 2024, month: 2, day: 31 })).toBe(false);
    expect(isRealDate({ year: 2024, month: 4, day: 31 })).toBe(false);
    expect(isRealDate({ year: 2024, month: 13, day: 1 })).toBe(false);
    expect(daysInMonth(1900, 2)).toBe(28);
    expect(daysInMonth(2000, 2)).toBe(29);
    expect(parseIsoDate("2024-02-30")).toBeNull();
    expect(parseIsoDate("2024-2-3")).toBeNull();
    expect(parseIsoDate("2024-02-03")).toEqual({ year: 2024, month: 2, day: 3 });
  });

  it("formats a calendar date for people", () => {
    expect(formatCalendarDate("2019-03-14")).toBe("14 March 2019");
    expect(formatInstantDate("2024-06-07T03:04:05.000Z", "UTC")).toBe("7 June 2024");
    expect(formatInstantDate("2024-06-07T03:04:05.000Z", "America/Los_Angeles")).toBe("6 June 2024");
  });
});

describe("a moment's date", () => {
  it("refuses dates in the future, more than a year before birth, or not real", () => {
    expect(takenOnProblem("2024-06-14", "2020-03-01", "2024-06-14")).toBeNull();
    expect(takenOnProblem("2024-06-15", "2020-03-01", "2024-06-14")).toBe("future");
    expect(takenOnProblem("2019-03-01", "2020-03-01", "2024-06-14")).toBeNull();
    expect(takenOnProblem("2019-02-28", "2020-03-01", "2024-06-14")).toBe("too-early");
    // born 29 February: a year before is 28 February
    expect(takenOnProblem("2023-02-28", "2024-02-29", "2024-06-14")).toBeNull();
    expect(takenOnProblem("2023-02-27", "2024-02-29", "2024-06-14")).toBe("too-early");
    expect(takenOnProblem("2024-02-30", "2020-03-01", "2024-06-14")).toBe("invalid");
    expect(takenOnProblem("14/06/2024", "2020-03-01", "2024-06-14")).toBe("invalid");
  });

  it("defaults to the EXIF date when it is acceptable, else today in the configured zone", () => {
    const now = new Date("2024-06-14T23:30:00.000Z");
    const la = todayInZone("America/Los_Angeles", now); // still the 14th
    const tokyo = todayInZone("Asia/Tokyo", now); // already the 15th
    expect([la, tokyo]).toEqual(["2024-06-14", "2024-06-15"]);
    expect(defaultTakenOn("2023-04-05", "2020-01-01", la)).toBe("2023-04-05"); // EXIF present
    expect(defaultTakenOn(null, "2020-01-01", la)).toBe("2024-06-14"); // EXIF absent
    expect(defaultTakenOn(null, "2020-01-01", tokyo)).toBe("2024-06-15");
    expect(defaultTakenOn("2024-06-15", "2020-01-01", la)).toBe("2024-06-14"); // camera clock in the future
    expect(defaultTakenOn("2024-06-15", "2020-01-01", tokyo)).toBe("2024-06-15");
    expect(defaultTakenOn("1999-01-01", "2020-01-01", la)).toBe("2024-06-14"); // long before birth
    expect(defaultTakenOn("garbage", "2020-01-01", la)).toBe("2024-06-14");
  });

  it("says the kid's age on the moment's date with the kid's calendar math", () => {
    expect(ageOnMomentText("Elsa", "2019-03-14", "2021-06-14")).toBe("Elsa was 2 years, 3 months");
    expect(ageOnMomentText("Elsa", "2019-03-14", "2021-06-13")).toBe("Elsa was 2 years, 2 months");
    expect(ageOnMomentText("Elsa", "2019-03-14", "2020-03-14")).toBe("Elsa was 1 year, 0 months");
    expect(ageOnMomentText("Leo", "2024-01-31", "2024-02-29")).toBe("Leo was 1 month"); // month-end anniversary
    expect(ageOnMomentText("Leo", "2024-01-31", "2024-02-28")).toBe("Leo was 28 days");
    expect(ageOnMomentText("Leo", "2024-01-31", "2024-01-31")).toBe("Leo was 0 days");
    expect(ageOnMomentText("Leo", "2024-01-31", "2023-12-25")).toBe("Before Leo was born");
    expect(formatShortAge({ years: 1, months: 1, days: 3 })).toBe("1 year, 1 month");
  });
});
