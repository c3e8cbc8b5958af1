import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { parseSubmissionToken } from "~/forms/submission";
import { listStored, listUploads } from "~/images/test-fixtures.server";
import { makeUser } from "../../tests/helpers";
import { createKid } from "./kids.server";
import { createMoment } from "./moment-changes.server";
import { sendFriendRequest } from "./friendships.server";
import { addComment } from "./comments.server";
import { createUser } from "./users.server";
import { jpeg, jpegUpload } from "./kids-test-helpers.server";
import { uploadFromBuffer } from "~/images/multipart.server";
import {
  fingerprintOf,
  newSubmissionToken,
  purgeSubmissions,
  submissionOnce,
  SUBMISSION_MAX_AGE_MS,
} from "./submissions.server";
import { runMaintenance } from "./maintenance.server";

// The one-time submission store and every domain create that uses it: the same token twice gives
// one row and the same answer, in sequence and at the same moment; other content is a new one.

const ELSA = { name: "Elsa", birth_date: "2019-03-14", relationship: "Mom" as const };
const count = async (table: string, where: Record<string, unknown>) =>
  Number((await db()(table).where(where).count({ n: "*" }).first())?.n ?? 0);
const claims = (token: string) => count("submissions", { token });

describe("tokens", () => {
  it("accepts 1 to 200 visible ASCII characters, a quoted header value too; anything else is no token", () => {
    const uuid = newSubmissionToken();
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(newSubmissionToken()).not.toBe(uuid);
    expect(parseSubmissionToken(uuid)).toBe(uuid);
    expect(parseSubmissionToken(` "${uuid}" `)).toBe(uuid);
    expect(parseSubmissionToken("a")).toBe("a");
    expect(parseSubmissionToken("x".repeat(200))).toBe("x".repeat(200));
    for (const bad of [undefined, null, 7, "", "  ", '""', "x".repeat(201), "with space", "tab\there", "é", {}]) {
      expect(parseSubmissionToken(bad)).toBeNull();
    }
  });

  it("a fingerprint is the content's, whatever the call", () => {
    expect(fingerprintOf(["a", 1])).toBe(fingerprintOf(["a", 1]));
    expect(fingerprintOf(["a", 1])).not.toBe(fingerprintOf(["a", 2]));
    expect(fingerprintOf(undefined)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("without a token nothing is recorded and nothing is replayed", async () => {
    const me = await makeUser();
    const unused = () => {
      throw new Error("only read with a token");
    };
    const once = await submissionOnce(me.id, "kid", undefined, unused, unused);
    expect(once.first).toBeNull();
    expect(await once.winner(new Error("x"))).toBeNull();
    const a = await createKid(me.id, ELSA, null);
    const b = await createKid(me.id, ELSA, null);
    expect(a.ok && b.ok && a.kid.id !== b.kid.id).toBe(true);
    expect(await count("kids", { user_id: me.id })).toBe(2);
    expect(await count("submissions", { user_id: me.id })).toBe(0);
  });
});

describe("createKid", () => {
  it("the same token twice: one kid, the same answer (replayed), one claim", async () => {
    const me = await makeUser();
    const token = newSubmissionToken();
    const first = await createKid(me.id, ELSA, null, { token });
    const second = await createKid(me.id, ELSA, null, { token });
    expect(first).toMatchObject({ ok: true });
    expect(second).toEqual({ ...first, replayed: true });
    expect(await count("kids", { user_id: me.id })).toBe(1);
    expect(await claims(token)).toBe(1);
  });

  it("with a photo, sent twice at the same moment: one kid, one photo, no file left behind", async () => {
    const me = await makeUser();
    const token = newSubmissionToken();
    const bytes = await jpeg();
    const [one, two] = [await uploadFromBuffer(bytes, "a.jpg"), await uploadFromBuffer(bytes, "a.jpg")];
    const [a, b] = await Promise.all([createKid(me.id, ELSA, one, { token }), createKid(me.id, ELSA, two, { token })]);
    if (!a.ok || !b.ok) throw new Error("refused");
    expect(a.kid.id).toBe(b.kid.id);
    expect(a.kid.photo?.key).toBe(b.kid.photo?.key);
    expect([a.replayed, b.replayed].filter(Boolean)).toHaveLength(1);
    expect(await count("kids", { user_id: me.id })).toBe(1);
    expect(await count("images", { owner_id: me.id })).toBe(1);
    // the stored photo's files only: the loser's new files and both temp files are gone
    expect(listUploads().filter((f) => f.startsWith(".tmp"))).toEqual([]);
    const keys = [...new Set((await listStored()).map((f) => f.split("/")[0]!))];
    expect(keys).toContain(a.kid.photo!.key);
    expect(await db()("images").whereIn("key", keys).pluck("key")).toHaveLength(keys.length); // no photo without its row
  });

  it("the same token with other content is a new kid (a form restored by Back, a reused key)", async () => {
    const me = await makeUser();
    const token = newSubmissionToken();
    const first = await createKid(me.id, ELSA, null, { token });
    const other = await createKid(me.id, { ...ELSA, name: "Anna" }, null, { token });
    expect(first.ok && other.ok && first.kid.id !== other.kid.id).toBe(true);
    expect(other).not.toHaveProperty("replayed");
    // and a different photo is other content too
    const withPhoto = await createKid(me.id, ELSA, await jpegUpload(), { token });
    expect(withPhoto.ok && withPhoto.kid.photo).toBeTruthy();
    expect(await count("kids", { user_id: me.id })).toBe(3);
  });

  it("a token is per user and per kind of thing: another user's or another form's is no repeat", async () => {
    const [me, you] = [await makeUser(), await makeUser()];
    const token = "shared-key";
    const mine = await createKid(me.id, ELSA, null, { token });
    const yours = await createKid(you.id, ELSA, null, { token });
    expect(mine.ok && yours.ok && mine.kid.user_id === me.id && yours.kid.user_id === you.id).toBe(true);
    // the same token on another form of the same user: a friend request, not a repeat of the kid
    expect(await sendFriendRequest(me.id, you.id, { token })).toMatchObject({
      ok: true,
      friendship: { friend_id: you.id },
    });
    expect(await claims(token)).toBe(3);
  });

  it("a repeat whose kid was removed meanwhile makes a new kid", async () => {
    const me = await makeUser();
    const token = newSubmissionToken();
    const first = await createKid(me.id, ELSA, null, { token });
    if (!first.ok) throw new Error("refused");
    await db()("kids").where({ id: first.kid.id }).delete();
    const again = await createKid(me.id, ELSA, null, { token });
    expect(again.ok && again.kid.id !== first.kid.id && !again.replayed).toBe(true);
  });

  it("a refused submission claims nothing: the corrected form with the same token goes through", async () => {
    const me = await makeUser();
    const token = newSubmissionToken();
    const refused = await createKid(me.id, ELSA, await uploadFromBuffer(Buffer.from("not a picture"), "a.jpg"), {
      token,
    });
    expect(refused).toMatchObject({ ok: false, kind: "invalid" });
    expect(await claims(token)).toBe(0);
    expect(await createKid(me.id, ELSA, null, { token })).toMatchObject({ ok: true });
    expect(await claims(token)).toBe(1);
  });
});

describe("createMoment, sendFriendRequest, addComment", () => {
  it("a moment sent twice (in sequence and at once): one moment each time", async () => {
    const me = await makeUser();
    const kid = await createKid(me.id, ELSA, null);
    if (!kid.ok) throw new Error("setup");
    const input = { title: "Beach", content: "Sand" };
    const token = newSubmissionToken();
    const first = await createMoment(me.id, kid.kid.id, input, await jpegUpload(), { token });
    const second = await createMoment(me.id, kid.kid.id, input, await jpegUpload(), { token });
    expect(second).toEqual({ ...first, replayed: true });
    const together = newSubmissionToken();
    const [a, b] = await Promise.all([
      createMoment(me.id, kid.kid.id, input, await jpegUpload(), { token: together }),
      createMoment(me.id, kid.kid.id, input, await jpegUpload(), { token: together }),
    ]);
    expect(a.ok && b.ok && a.moment.id === b.moment.id).toBe(true);
    expect(await count("daily_logs", { kid_id: kid.kid.id })).toBe(2);
    expect(await count("images", { owner_id: me.id })).toBe(2);
  });

  it("a friend request sent twice answers the request instead of 'already exists'; without a token it still is", async () => {
    const [me, you, them] = [await makeUser(), await makeUser(), await makeUser()];
    const token = newSubmissionToken();
    const first = await sendFriendRequest(me.id, you.id, { token });
    expect(await sendFriendRequest(me.id, String(you.id), { token })).toEqual({ ...first, replayed: true });
    expect(await sendFriendRequest(me.id, you.id)).toMatchObject({
      ok: false,
      kind: "conflict",
      message: "Friendship already exists. Please try another name.",
    });
    // the same token for someone else: a new request, not a replay
    expect(await sendFriendRequest(me.id, them.id, { token })).toMatchObject({
      ok: true,
      friendship: { friend_id: them.id },
    });
    const together = newSubmissionToken();
    const [x, y] = await Promise.all([
      sendFriendRequest(you.id, them.id, { token: together }),
      sendFriendRequest(you.id, them.id, { token: together }),
    ]);
    expect(x.ok && y.ok && x.friendship.id === y.friendship.id).toBe(true);
    expect(await count("friendships", { user_id: you.id })).toBe(1);
  });

  it("a comment sent twice is one comment; the same text again with a new token is a second one", async () => {
    const me = await makeUser();
    const kid = await createKid(me.id, ELSA, null);
    if (!kid.ok) throw new Error("setup");
    const moment = await createMoment(me.id, kid.kid.id, { title: "t", content: "c" }, await jpegUpload());
    if (!moment.ok) throw new Error("setup");
    const id = moment.moment.id;
    const token = newSubmissionToken();
    const [a, b] = await Promise.all([
      addComment(me.id, id, " Cute! ", { token }),
      addComment(me.id, id, "Cute!", { token }),
    ]);
    expect(a.ok && b.ok && a.comment.id === b.comment.id).toBe(true);
    expect(await addComment(me.id, id, "Cute!", { token })).toMatchObject({ ok: true, replayed: true });
    expect(await addComment(me.id, id, "Cute!", { token: newSubmissionToken() })).toMatchObject({ ok: true });
    expect(await count("comments", { daily_log_id: id })).toBe(2);
  });
});

describe("createUser (sign-up)", () => {
  const account = () => {
    const tag = Math.random().toString(36).slice(2, 10);
    return {
      email: `s${tag}@example.com`,
      username: `s${tag}`,
      password: "secret12",
      first_name: "Sam",
      last_name: "Sign",
    };
  };

  it("a double Register: one account, and the repeat answers it (to sign in) instead of 'already in use'", async () => {
    const input = account();
    const token = newSubmissionToken();
    const [a, b] = await Promise.all([createUser(input, { token }), createUser(input, { token })]);
    expect(a.ok && b.ok && a.user.id === b.user.id).toBe(true);
    expect(await createUser(input, { token })).toMatchObject({ ok: true, replayed: true });
    expect(await count("users", { email_normalized: input.email })).toBe(1);
  });

  it("the token alone signs nobody in: another password gets the usual conflict", async () => {
    const input = account();
    const token = newSubmissionToken();
    expect(await createUser(input, { token })).toMatchObject({ ok: true });
    expect(await createUser({ ...input, password: "another1" }, { token })).toEqual({
      ok: false,
      kind: "conflict",
      fieldErrors: { email: ["Email address is already in use."], username: ["Username is already in use."] },
    });
    // without a token, as always
    expect(await createUser(input)).toMatchObject({ ok: false, kind: "conflict" });
  });
});

describe("purge", () => {
  it("removes claims older than a day (also through the maintenance round); younger ones stay", async () => {
    const me = await makeUser();
    const old = newSubmissionToken();
    const young = newSubmissionToken();
    await createKid(me.id, ELSA, null, { token: old });
    await createKid(me.id, ELSA, null, { token: young });
    await db()("submissions")
      .where({ token: old })
      .update({ created_at: new Date(Date.now() - SUBMISSION_MAX_AGE_MS - 1000).toISOString() });
    expect(await purgeSubmissions()).toBeGreaterThanOrEqual(1);
    expect(await claims(old)).toBe(0);
    expect(await claims(young)).toBe(1);
    await db()("submissions").where({ token: young }).update({ created_at: "2000-01-01T00:00:00.000Z" });
    expect((await runMaintenance()).submissions).toBeGreaterThanOrEqual(1);
    expect(await claims(young)).toBe(0);
  });
});
