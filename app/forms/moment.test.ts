import { describe, expect, it } from "vitest";
import { parseWithZod } from "@conform-to/zod/v4";
import { IMAGE_PRESENT } from "~/images/limits";
import { momentFormSchema } from "./moment";
import { schemaErrorsOf } from "../../tests/helpers";

describe("moment form schema", () => {
  it("gives the add messages, 'can not' wording, image required", () => {
    expect(schemaErrorsOf(momentFormSchema("add"), {})).toEqual({
      title: ["Title is required"],
      content: ["Content is required"],
      image: ["Image is required"],
    });
    expect(
      schemaErrorsOf(momentFormSchema("add"), {
        title: "t".repeat(51),
        content: "c".repeat(2001),
        image: IMAGE_PRESENT,
      }),
    ).toEqual({
      title: ["Title can not be more than 50 characters"],
      content: ["Content can not be more than 2000 characters"],
    });
  });

  it("gives the update wording, image optional", () => {
    expect(schemaErrorsOf(momentFormSchema("update"), { title: "  ", content: " \n " })).toEqual({
      title: ["Title is required"],
      content: ["Content is required"],
    });
    expect(schemaErrorsOf(momentFormSchema("update"), { title: "t".repeat(51), content: "c".repeat(2001) })).toEqual({
      title: ["Title cannot be more than 50 characters"],
      content: ["Content cannot be more than 2000 characters"],
    });
  });

  it("accepts limits exactly and trims", () => {
    const fd = new FormData();
    fd.set("title", ` ${"t".repeat(50)} `);
    fd.set("content", "😀".repeat(2000)); // characters, not UTF-16 units
    fd.set("image", IMAGE_PRESENT);
    const submission = parseWithZod(fd, { schema: momentFormSchema("add") });
    expect(submission.status).toBe("success");
    if (submission.status === "success") expect(submission.value.title).toBe("t".repeat(50));
  });

  it("checks a chosen file's type and size in the browser", () => {
    expect(
      schemaErrorsOf(momentFormSchema("add"), {
        title: "a",
        content: "b",
        image: new File(["hello"], "notes.txt", { type: "text/plain" }),
      }),
    ).toEqual({
      image: ["Only image files are accepted."],
    });
    const big = new File([new Uint8Array(15 * 1024 * 1024 + 1)], "big.jpg", { type: "image/jpeg" });
    expect(schemaErrorsOf(momentFormSchema("update"), { title: "a", content: "b", image: big })).toEqual({
      image: ["Image must be 15 MB or smaller."],
    });
    expect(
      schemaErrorsOf(momentFormSchema("add"), {
        title: "a",
        content: "b",
        image: new File(["x"], "a.jpg", { type: "image/jpeg" }),
      }),
    ).toBeNull();
  });
});
