import { describe, expect, it } from "vitest";
import { db } from "~/lib/db.server";
import { isStored, listStored } from "~/images/test-fixtures.server";
import { cookieFor, makeUser } from "../../tests/helpers";
import { userReferenceColumns, userTraces } from "../../tests/user-traces";
import {
  insertBlock,
  insertCoParent,
  insertComment,
  insertFriendship,
  insertKid,
  insertLike,
  insertMoment,
  quickUser,
  storePhoto,
} from "../../tests/unit/friends-fixtures";
import { sendDueDigests } from "~/mail/digest.server";
import { dailyDigestDueNow } from "../../tests/kit/digests";
import { createInvitation } from "./invitations.server";
import { requestSignInLink } from "./sign-in-links.server";
import { getUserById } from "./users.server";
import { deleteAccount, EMAIL_CHANGES_TOO_MANY, getAccount, updateProfile, FRESH_SIGN_IN_MS } from "./account.server";
import { canSeeKidsOf, requireKid } from "./access.server";

// docs/spec.md §2: the account's own settings and its deletion.

const profile = (
  u: { username: string; email: string; first_name: string | null; last_name: string | null },
  over: Record<string, unknown> = {},
) => ({
  username: u.username,
  email: u.email,
  first_name: u.first_name,
  last_name: u.last_name,
  current_password: undefined as string | undefined,
  ...over,
});
const update = (id: number, input: ReturnType<typeof profile>) =>
  updateProfile(id, input as never, "https://moments.test");

describe("updateProfile", () => {
  it("changes names without the password, username and email only with the current password", async () => {
    const u = await makeUser();
    expect(await update(u.id, profile(u, { first_name: "Anna", last_name: null }))).toMatchObject({
      ok: true,
      user: { first_name: "Anna", last_name: null },
    });
    expect(await update(u.id, profile(u, { username: "renamed" + u.id }))).toEqual({
      ok: false,
      kind: "invalid",
      message: "Enter your current password to change your username or email.",
      fieldErrors: { current_password: ["Enter your current password to change your username or email."] },
    });
    expect(
      await update(u.id, profile(u, { email: `new${u.id}@example.com`, current_password: "wrong1" })),
    ).toMatchObject({
      ok: false,
      fieldErrors: { current_password: ["The current password is incorrect."] },
    });
    const saved = await update(
      u.id,
      profile(u, { email: `New${u.id}@Example.com`, username: "renamed" + u.id, current_password: "secret1" }),
    );
    expect(saved).toMatchObject({ ok: true, user: { email: `new${u.id}@example.com`, username: "renamed" + u.id } });
  });

  it("in the minutes after a sign-in by an emailed link, username and email change without the current password", async () => {
    const u = await makeUser();
    const fresh = { linkSignInAt: new Date().toISOString() };
    const stale = { linkSignInAt: new Date(Date.now() - FRESH_SIGN_IN_MS - 1000).toISOString() };
    const renamed = profile(u, { username: `linked${u.id}` });
    expect(await updateProfile(u.id, renamed as never, "https://moments.test", stale)).toMatchObject({
      ok: false,
      fieldErrors: { current_password: ["Enter your current password to change your username or email."] },
    });
    expect(await updateProfile(u.id, renamed as never, "https://moments.test", fresh)).toMatchObject({
      ok: true,
      user: { username: `linked${u.id}` },
    });
    // a current password that is given is still checked
    expect(
      await updateProfile(
        u.id,
        profile(u, { username: `again${u.id}`, current_password: "wrong1" }) as never,
        "https://moments.test",
        fresh,
      ),
    ).toMatchObject({ ok: false, fieldErrors: { current_password: ["The current password is incorrect."] } });
  });

  it("a relative named Bo Li saves her details as they are", async () => {
    const u = await makeUser({ first_name: "Bo", last_name: "Li" });
    expect(await update(u.id, profile(u))).toMatchObject({ ok: true, user: { first_name: "Bo", last_name: "Li" } });
    const long = "Ñ".repeat(50);
    expect(await update(u.id, profile(u, { first_name: long, last_name: "李" }))).toMatchObject({
      ok: true,
      user: { first_name: long, last_name: "李" },
    });
  });

  it("refuses an email or username taken by someone else in sign-up's words, not one's own", async () => {
    const u = await makeUser();
    const other = await makeUser();
    expect(
      await update(
        u.id,
        profile(u, { email: other.email.toUpperCase(), username: other.username, current_password: "secret1" }),
      ),
    ).toEqual({
      ok: false,
      kind: "conflict",
      fieldErrors: { email: ["Email address is already in use."], username: ["Username is already in use."] },
    });
    // the account's own username in other case is no conflict
    expect(
      await update(u.id, profile(u, { username: u.username.toUpperCase(), current_password: "secret1" })),
    ).toMatchObject({ ok: true });
  });

  it("tries of a new email address are limited per user per day, taken ones included; names still change", async () => {
    const u = await makeUser();
    const other = await makeUser();
    for (let i = 0; i < 10; i++) {
      const email = i % 2 ? other.email : `try${i}x${u.id}@example.com`;
      expect((await update(u.id, profile(u, { email, current_password: "secret1" }))).ok, `try ${i}`).toBe(i % 2 === 0);
    }
    expect(await update(u.id, profile(u, { email: other.email, current_password: "secret1" }))).toEqual({
      ok: false,
      kind: "too-many",
      message: EMAIL_CHANGES_TOO_MANY,
      fieldErrors: { email: [EMAIL_CHANGES_TOO_MANY] },
    });
    const current = (await getAccount(u.id))!;
    expect(await update(u.id, profile(current, { first_name: "Still" }))).toMatchObject({
      ok: true,
      user: { first_name: "Still" },
    });
  });

  it("an account without a password changes its email without one", async () => {
    const u = await makeUser();
    await db()("users").where("id", u.id).update({ password_hash: "" });
    expect(await update(u.id, profile(u, { email: `free${u.id}@example.com` }))).toMatchObject({ ok: true });
  });
});

describe("deleteAccount", () => {
  it("the check sees every column that references users", async () => {
    const columns = await userReferenceColumns();
    for (const c of [
      "users.id",
      "sessions.user_id",
      "kids.user_id",
      "likes.user_id",
      "comments.user_id",
      "friendships.user_id",
      "friendships.friend_id",
      "friendships.user_low",
      "images.owner_id",
    ]) {
      expect(columns).toContain(c);
    }
  });

  it("the check finds what a table added later keeps of the user (here one without ON DELETE CASCADE)", async () => {
    await db().schema.createTable("test_reminders", (t) => {
      t.increments("id").primary();
      t.integer("recipient_id").notNullable();
      t.string("note", 200).notNullable();
    });
    try {
      const u = await makeUser({ username: `reminded${Date.now() % 100000}` });
      await db()("test_reminders").insert({ recipient_id: u.id, note: `for ${u.email}` });
      expect(await deleteAccount(u.id, { password: "secret1" })).toEqual({ ok: true });
      expect(await userTraces(u)).toEqual([
        `test_reminders.recipient_id = ${u.id}: 1 rows`,
        `test_reminders.note holds "${u.email.toLowerCase()}": 1 rows`,
      ]);
    } finally {
      await db().schema.dropTable("test_reminders");
    }
  });

  it("asks for the password; an account without one, a log-in within the last minutes", async () => {
    const u = await makeUser();
    expect(await deleteAccount(u.id, {})).toMatchObject({
      ok: false,
      fieldErrors: { password: ["Enter your password to delete your account."] },
    });
    expect(await deleteAccount(u.id, { password: "wrong1" })).toMatchObject({
      ok: false,
      fieldErrors: { password: ["The password is incorrect."] },
    });
    expect(await getAccount(u.id)).not.toBeNull();

    const free = await makeUser();
    await db()("users").where("id", free.id).update({ password_hash: "" });
    const old = new Date(Date.now() - FRESH_SIGN_IN_MS - 1000).toISOString();
    expect(await deleteAccount(free.id, { password: "anything", signedInAt: old })).toMatchObject({
      ok: false,
      kind: "invalid",
    });
    expect(await deleteAccount(free.id, { signedInAt: null })).toMatchObject({ ok: false, kind: "invalid" });
    expect(await deleteAccount(free.id, { signedInAt: new Date().toISOString() })).toEqual({ ok: true });
    expect(await getAccount(free.id)).toBeNull();
  });

  it("leaves nothing of the user in any table nor in the photo store; friends keep theirs and lose access at once", async () => {
    const gone = await makeUser();
    const friend = await makeUser();
    const asker = await quickUser();
    await cookieFor(gone);
    await cookieFor(gone);
    await cookieFor(friend);

    const picture = await storePhoto("user", gone.id, "#111");
    await db()("users").where("id", gone.id).update({ image_id: picture.imageId });
    const kidPhoto = await storePhoto("kid", gone.id, "#222");
    const logPhoto = await storePhoto("moment", gone.id, "#333");
    const kid = await insertKid(gone, "Elsa", kidPhoto.imageId);
    const moment = await insertMoment(kid, "First steps", logPhoto.imageId);
    await insertMoment(await insertKid(gone, "Olaf"), "Snow");
    await insertFriendship(gone, friend, "accepted");
    await insertFriendship(asker, gone, "pending");
    await insertLike(moment, friend);
    await insertComment(moment, friend, "Wonderful");

    const friendPhoto = await storePhoto("moment", friend.id, "#444");
    const friendKid = await insertKid(friend, "Anna");
    const friendMoment = await insertMoment(friendKid, "Ice", friendPhoto.imageId);
    await insertLike(friendMoment, gone);
    await insertComment(friendMoment, gone, `Hello from ${gone.username}`);
    await insertComment(friendMoment, friend, "Thanks");

    // one-time submissions (no foreign key to users): one of theirs, and the sign-up that made the account
    const submission = {
      action: "kid",
      token: "t",
      fingerprint: "f",
      result_id: kid,
      created_at: new Date().toISOString(),
    };
    await db()("submissions").insert([
      { ...submission, user_id: gone.id },
      { ...submission, user_id: 0, action: "signup", result_id: gone.id },
      { ...submission, user_id: 0, action: "signup", token: "other", result_id: friend.id },
    ]);

    // mail (no foreign key from mail_messages to users): a digest to the user (sent already), a
    // friend's queued digest that carries the user's moments and comment, the user's invitation
    // email, a friend's invitation to the user's address, a sign-in link; and the friend's own link, which stays
    const origin = "http://moments.test";
    // the mail of this test only (earlier tests of the file changed addresses, which mails the old ones)
    const mailBefore = Number((await db()("mail_messages").max({ m: "id" }).first())?.m ?? 0);
    for (const u of [gone, friend]) await dailyDigestDueNow(u.id, "1970-01-01T00:00:00.000Z");
    expect(await sendDueDigests(new Date(), origin)).toBe(2);
    await db()("mail_messages")
      .where({ kind: "digest", to_address: gone.email })
      .update({ status: "sent", sent_at: new Date().toISOString() });
    const friendsDigest = await db()("mail_messages")
      .where({ kind: "digest", to_address: friend.email })
      .first("id", "status", "text_body");
    expect(friendsDigest).toMatchObject({ status: "queued", text_body: expect.stringContaining("First steps") });
    expect(friendsDigest.text_body).toContain(`Hello from ${gone.username}`);
    expect(
      await createInvitation(
        (await getUserById(gone.id))!,
        { email: "grandma@example.com", note: "Come and see Elsa" },
        origin,
      ),
    ).toMatchObject({ ok: true });
    expect(await createInvitation((await getUserById(friend.id))!, { email: gone.email }, origin)).toMatchObject({
      ok: true,
    });
    await requestSignInLink(gone.email, { reset: false, origin, address: "192.0.2.1" });
    await requestSignInLink(friend.email, { reset: false, origin, address: "192.0.2.2" });
    const mailIds: number[] = await db()("mail_messages").where("id", ">", mailBefore).pluck("id");
    expect(mailIds).toHaveLength(6);
    // an in-app notification each way, a block
    await db()("notifications").insert([
      { user_id: gone.id, kind: "like", actor_id: friend.id, moment_id: moment, created_at: new Date().toISOString() },
      {
        user_id: friend.id,
        kind: "comment",
        actor_id: gone.id,
        moment_id: friendMoment,
        created_at: new Date().toISOString(),
      },
    ]);
    await insertBlock(gone, asker);

    expect((await userTraces(gone)).length).toBeGreaterThan(5);
    expect(await requireKid(friend.id, kid, "view")).toMatchObject({ ok: true });

    expect(await deleteAccount(gone.id, { password: "secret1" })).toEqual({ ok: true });

    expect(await userTraces(gone)).toEqual([]);
    // of the six messages only the friend's own sign-in link is left
    expect(await db()("mail_messages").where("id", ">", mailBefore).select("kind", "to_address")).toEqual([
      { kind: "sign-in", to_address: friend.email },
    ]);
    // the friend's invitation to the user's address stays the friend's, without the address
    expect(await db()("invitations").where("inviter_id", friend.id).pluck("email")).toEqual([null]);
    expect(
      await db()("submissions")
        .whereIn("result_id", [gone.id, friend.id])
        .andWhere("action", "signup")
        .pluck("result_id"),
    ).toEqual([friend.id]);
    for (const key of [picture.key, kidPhoto.key, logPhoto.key]) expect(await isStored(key)).toBe(false);
    // every photo left in the store belongs to an images row, none of them the user's
    const keys = new Set((await listStored()).map((f) => f.split("/")[0]!));
    const rows = await db()("images")
      .whereIn("key", [...keys])
      .select("key", "owner_id");
    expect(rows.map((r) => r.key).sort()).toEqual([...keys].sort());
    expect(rows.filter((r) => Number(r.owner_id) === gone.id)).toEqual([]);
    // friends lose access at once, and keep what is theirs
    expect(await requireKid(friend.id, kid, "view")).toMatchObject({ ok: false, kind: "not-found" });
    expect(await canSeeKidsOf(friend.id, gone.id)).toBe(false);
    expect(await isStored(friendPhoto.key)).toBe(true);
    expect(await db()("comments").where("daily_log_id", friendMoment).pluck("comment")).toEqual(["Thanks"]);
    expect(Number((await db()("sessions").where("user_id", friend.id).count({ n: "*" }).first())?.n)).toBe(1);
    expect(await getAccount(friend.id)).not.toBeNull();
    expect(await userTraces(friend)).not.toEqual([]);
  });
  it("a kid shared with a co-parent stays with them, with its moments and photos; the rest goes", async () => {
    const gone = await makeUser();
    const coParent = await makeUser();
    const pending = await makeUser();
    await insertFriendship(gone, coParent, "accepted");
    await insertFriendship(gone, pending, "accepted");
    const kidPhoto = await storePhoto("kid", gone.id, "#555");
    const logPhoto = await storePhoto("moment", gone.id, "#666");
    const shared = await insertKid(gone, "Shared", kidPhoto.imageId);
    const moment = await insertMoment(shared, "Together", logPhoto.imageId);
    await insertCoParent(shared, coParent, "accepted");
    const onlyInvited = await insertKid(gone, "Invited only");
    await insertCoParent(onlyInvited, pending, "pending");

    expect(await deleteAccount(gone.id, { password: "secret1" })).toEqual({ ok: true });

    expect(await userTraces(gone)).toEqual([]);
    expect(await db()("kids").where("id", shared).first("user_id")).toEqual({ user_id: coParent.id });
    expect(await db()("co_parents").where("kid_id", shared).count({ n: "*" }).first()).toMatchObject({ n: 0 });
    expect(await requireKid(coParent.id, shared, "own")).toMatchObject({ ok: true, isOwner: true });
    expect(await db()("daily_logs").where("id", moment).first("kid_id")).toEqual({ kid_id: shared });
    expect(await isStored(kidPhoto.key)).toBe(true);
    expect(await isStored(logPhoto.key)).toBe(true);
    // a kid whose co-parent never accepted goes with the account
    expect(await db()("kids").where("id", onlyInvited).first()).toBeUndefined();
  });
});
