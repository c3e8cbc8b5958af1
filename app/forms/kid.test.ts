import { describe, expect, it } from "vitest";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  kidApiSchema,
  kidFormDefaults,
  kidFormSchema,
  yearOptions,
  DAY_OPTIONS,
  MONTH_OPTIONS,
  RELATIONSHIPS,
} from "./kid";
import { formData, schemaErrorsOf } from "../../tests/helpers";

const TODAY = "2024-06-06";

describe("kid form schema", () => {
  it("accepts a complete form and builds the birth date", () => {
    const submission = parseWithZod(
      formData({ name: "  Elsa ", year: "2019", month: "03", day: "14", relationship: "Mom" }),
      { schema: kidFormSchema("add", TODAY) },
    );
    expect(submission.status).toBe("success");
    if (submission.status === "success") {
      expect(submission.value).toEqual({ name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" });
    }
  });

  it("gives every add message of docs/spec.md §5 at once", () => {
    expect(schemaErrorsOf(kidFormSchema("add", TODAY), {})).toEqual({
      name: ["Name is required"],
      year: ["Select Year"],
      month: ["Select Month"],
      day: ["Select Day"],
      relationship: ["Please choose a relationship"],
    });
    expect(
      schemaErrorsOf(kidFormSchema("add", TODAY), {
        name: "x".repeat(51),
        year: "2020",
        month: "01",
        day: "01",
        relationship: "Mom",
      }),
    ).toEqual({
      name: ["Name can not be more than 50 characters"],
    });
  });

  it("gives the update wording", () => {
    expect(schemaErrorsOf(kidFormSchema("update", TODAY), { name: "   " })).toEqual({
      name: ["Name is required"],
      year: ["Please choose a year"],
      month: ["Please choose a month"],
      day: ["Please choose a day"],
      relationship: ["Please choose a relationship"],
    });
    expect(
      schemaErrorsOf(kidFormSchema("update", TODAY), {
        name: "y".repeat(51),
        year: "2020",
        month: "01",
        day: "01",
        relationship: "Dad",
      }),
    ).toEqual({
      name: ["Name cannot be more than 50 characters"],
    });
  });

  it("refuses an impossible date and a future date with a clear message, with the other errors", () => {
    expect(
      schemaErrorsOf(kidFormSchema("add", TODAY), { year: "2023", month: "02", day: "31", relationship: "Mom" }),
    ).toEqual({
      name: ["Name is required"],
      day: ["February 2023 has only 28 days. Please choose a real date"],
    });
    expect(
      schemaErrorsOf(kidFormSchema("add", TODAY), {
        name: "A",
        year: "2024",
        month: "02",
        day: "30",
        relationship: "Mom",
      }),
    ).toEqual({
      day: ["February 2024 has only 29 days. Please choose a real date"],
    });
    expect(
      schemaErrorsOf(kidFormSchema("add", TODAY), {
        name: "A",
        year: "2024",
        month: "06",
        day: "07",
        relationship: "Mom",
      }),
    ).toEqual({
      day: ["Birth date cannot be in the future"],
    });
    // today is fine; so is 29 February of a leap year
    expect(
      schemaErrorsOf(kidFormSchema("add", TODAY), {
        name: "A",
        year: "2024",
        month: "06",
        day: "06",
        relationship: "Mom",
      }),
    ).toBeNull();
    expect(
      schemaErrorsOf(kidFormSchema("add", TODAY), {
        name: "A",
        year: "2024",
        month: "02",
        day: "29",
        relationship: "Mom",
      }),
    ).toBeNull();
  });

  it("refuses tampered values: a later year, month 13, an unknown relationship", () => {
    expect(
      schemaErrorsOf(kidFormSchema("add", TODAY), {
        name: "A",
        year: "2025",
        month: "13",
        day: "32",
        relationship: "Uncle",
      }),
    ).toEqual({
      year: ["Select Year"],
      month: ["Select Month"],
      day: ["Select Day"],
      relationship: ["Please choose a relationship"],
    });
  });

  it("offers the current year and the 99 before it, months 1–12, days 01–31, five relationships", () => {
    const years = yearOptions(TODAY);
    expect(years).toHaveLength(100);
    expect(years[0]).toBe(2024);
    expect(years[99]).toBe(1925);
    expect(MONTH_OPTIONS.map((m) => m.value)).toEqual([
      "01",
      "02",
      "03",
      "04",
      "05",
      "06",
      "07",
      "08",
      "09",
      "10",
      "11",
      "12",
    ]);
    expect(DAY_OPTIONS[0]).toBe("01");
    expect(DAY_OPTIONS).toHaveLength(31);
    expect(RELATIONSHIPS).toEqual(["Mom", "Dad", "Grandpa", "Grandma", "Other"]);
  });

  it("prefills the update form from a kid", () => {
    expect(kidFormDefaults({ name: "Leo", birth_date: "2021-08-02", relationship: "Dad" })).toEqual({
      name: "Leo",
      year: "2021",
      month: "08",
      day: "02",
      relationship: "Dad",
      default_audience: "everyone",
    });
  });
});

describe("kid API schema", () => {
  const schema = kidApiSchema("add", TODAY);
  const issues = (body: unknown) => {
    const r = schema.safeParse(body);
    return r.success ? null : Object.fromEntries(r.error.issues.map((i) => [String(i.path[0]), i.message]));
  };

  it("accepts a real past date", () => {
    expect(issues({ name: "Elsa", birth_date: "2019-03-14", relationship: "Other" })).toBeNull();
  });

  it("explains what is wrong with birth_date", () => {
    expect(issues({ name: "Elsa", relationship: "Mom" })).toEqual({ birth_date: "Birth date is required" });
    expect(issues({ name: "Elsa", birth_date: "14/03/2019", relationship: "Mom" })).toEqual({
      birth_date: "Birth date must be a date written as YYYY-MM-DD",
    });
    expect(issues({ name: "Elsa", birth_date: "2023-02-29", relationship: "Mom" })).toEqual({
      birth_date: "February 2023 has only 28 days. Please choose a real date",
    });
    expect(issues({ name: "Elsa", birth_date: "2030-01-01", relationship: "Mom" })).toEqual({
      birth_date: "Birth date cannot be in the future",
    });
  });
});
