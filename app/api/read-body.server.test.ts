import { describe, expect, it } from "vitest";
import { listUploads, makeImage } from "~/images/test-fixtures.server";
import { readFields } from "./read-body.server";
import { BASE } from "../../tests/helpers";

// readFields: JSON, urlencoded and multipart bodies give the same text fields; multipart is
// streamed (files never kept), and unreadable or oversized bodies get the API's envelopes.

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request(`${BASE}/api/x`, { method: "POST", body, headers });

async function refusal(promise: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Response) return { status: error.status, body: await error.json() };
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("readFields", () => {
  it("JSON and urlencoded as before", async () => {
    expect(await readFields(post(JSON.stringify({ a: "1", b: 2 }), { "Content-Type": "application/json" }))).toEqual({
      a: "1",
      b: 2,
    });
    expect(await readFields(post("", { "Content-Type": "application/json" }))).toEqual({});
    expect(await readFields(post(new URLSearchParams({ a: "1", b: "two" })))).toEqual({ a: "1", b: "two" });
    expect(await refusal(readFields(post("{nope", { "Content-Type": "application/json" })))).toEqual({
      status: 400,
      body: { errors: { message: "The request body could not be read." } },
    });
  });

  it("multipart: the text fields (first value wins); file parts are discarded, nothing left on disk", async () => {
    const before = listUploads();
    const form = new FormData();
    form.set("comment", "Hello there");
    form.append("friend_id", "7");
    form.append("friend_id", "8");
    form.set("image", new Blob([new Uint8Array(await makeImage("jpeg", 300, 200))], { type: "image/jpeg" }), "a.jpg");
    form.set("other", new Blob(["some file"]), "b.txt");
    expect(await readFields(post(form))).toEqual({ comment: "Hello there", friend_id: "7" });
    expect(listUploads()).toEqual(before);
  });

  it("multipart: a field too large answers 413; a malformed body 400", async () => {
    const form = new FormData();
    form.set("comment", "x".repeat(1024 * 1024 + 1));
    expect((await refusal(readFields(post(form)))).status).toBe(413);
    const broken = await refusal(
      readFields(
        post('--abc\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue', {
          "Content-Type": "multipart/form-data; boundary=abc",
        }),
      ),
    );
    expect(broken).toEqual({ status: 400, body: { errors: { message: "The request body could not be read." } } });
  });
});
