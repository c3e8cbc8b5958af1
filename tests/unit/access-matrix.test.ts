// THE ACCESS MATRIX: for five viewers (signed out, stranger, pending requester, accepted friend,
// owner) it requests every page route, every /api route and a photo URL of each kind, through the
// real route modules with real Requests, and checks each cell against what docs/spec.md §6 and
// docs/api.md require. It reads app/routes.ts: a route without an entry here fails the test.
//
// Pages: signed out → redirect to /login; not visible → 404 (the plain not-found page); visible → 200
// (owner-only forms: 403 for a friend, who may see the kid but not change it).
// /api: signed out → 401; not allowed → 403; allowed → the success status of docs/api.md.
// Photos: not allowed (signed out included) → 404.
import path from "node:path";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { isRouteErrorResponse } from "react-router";
import routes from "~/routes";
import { photoUrl } from "~/images/photo";
import { args, cookieFor, makeUser, req } from "../helpers";
import {
  givePicture,
  insertComment,
  insertFriendship,
  insertKid,
  insertLike,
  insertMoment,
  quickUser,
  storePhoto,
} from "./friends-fixtures";

const VIEWERS = ["signedOut", "stranger", "pending", "friend", "owner"] as const;
type Viewer = (typeof VIEWERS)[number];

/** A status, "login" (redirect to the log-in page) or a redirect to a path starting with `to`. */
type Outcome = number | "login" | { redirect: string };
type Row = Record<Viewer, Outcome>;

type World = {
  users: Record<Exclude<Viewer, "signedOut">, { id: number }>;
  cookies: Record<Viewer, string | undefined>;
  kidId: number;
  logId: number;
  lonely: { id: number };
  urls: { profile: string; kid: string; log: string };
  jpeg: Buffer;
};

/** What a cell sends. `prepare` runs first, for probes that use up or need their own rows. */
type Probe = {
  label: string;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  /** Path parameters (the URL is built from the route's path with them). */
  params?: (w: World, viewer: Viewer, prepared: Record<string, number>) => Record<string, string>;
  query?: string;
  body?: (w: World) => { json?: unknown; form?: Record<string, string> | FormData };
  prepare?: (w: World, viewer: Viewer) => Promise<Record<string, number>>;
  /** Use a session of its own (the probe ends it). */
  ownSession?: boolean;
  expect: Row;
};

// ---- expectation shorthands ---------------------------------------------------------------

const all = (signedOut: Outcome, signedIn: Outcome): Row => ({
  signedOut,
  stranger: signedIn,
  pending: signedIn,
  friend: signedIn,
  owner: signedIn,
});
/** A page only friends and the owner see. */
const friendsPage: Row = { signedOut: "login", stranger: 404, pending: 404, friend: 200, owner: 200 };
/**
 * A page only the owner uses (forms that change a kid or a moment). Those who may not see the kid
 * get the plain not-found page; a friend, who may see it (so learns nothing new), gets 403.
 */
const ownerPage = (ok: Outcome = 200): Row => ({ signedOut: "login", stranger: 404, pending: 404, friend: 403, owner: ok });
/** An /api call friends and the owner may make. */
const friendsApi = (ok: number): Row => ({ signedOut: 401, stranger: 403, pending: 403, friend: ok, owner: ok });
/** An /api call only the owner may make. */
const ownerApi = (ok: number): Row => ({ signedOut: 401, stranger: 403, pending: 403, friend: 403, owner: ok });
const friendsImage: Row = { signedOut: 404, stranger: 404, pending: 404, friend: 200, owner: 200 };

const kidParam = (key: string) => (w: World) => ({ [key]: String(w.kidId) });
const logParam = (key: string) => (w: World) => ({ [key]: String(w.logId) });
const freshKid = async (w: World) => ({ kidId: await insertKid(w.users.owner, "Temp") });
const freshLog = async (w: World) => ({ logId: await insertMoment(w.kidId, "Temp") });
const imageParams = (which: keyof World["urls"]) => (w: World) => {
  const [, , key, file] = w.urls[which].split("/");
  return { key: key!, file: file! };
};

/** A new session of the owner; its handle (as the settings page and the API name it) in `lastHandle`. */
let lastHandle = "";
async function sessionHandleOf(who?: { id: number }): Promise<Record<string, number>> {
  const { createSession, listSessions } = await import("~/models/sessions.server");
  const owner = who ?? world.users.owner;
  const { token } = await createSession(owner.id, "matrix");
  lastHandle = (await listSessions(owner.id, token)).find((s) => s.current)!.id;
  return {};
}

function kidForm(): FormData {
  const form = new FormData();
  form.set("name", "Renamed");
  form.set("birth_date", "2019-02-03");
  form.set("relationship", "Dad");
  form.set("image", "null");
  return form;
}
function momentForm(w: World, withImage: boolean): FormData {
  const form = new FormData();
  form.set("title", "A day out");
  form.set("content", "We went to the zoo.");
  if (withImage) form.set("image", new Blob([new Uint8Array(w.jpeg)], { type: "image/jpeg" }), "day.jpg");
  return form;
}
function pictureForm(w: World): FormData {
  const form = new FormData();
  form.set("image", new Blob([new Uint8Array(w.jpeg)], { type: "image/jpeg" }), "me.jpg");
  return form;
}

/** A well-formed token that no link has. */
const UNKNOWN_TOKEN = "A".repeat(43);
/** The tokens of invitations made by probes, by invitation id. */
const tokens = new Map<number, string>();
async function ownerInvitation(w: World): Promise<number> {
  const { createInvitation } = await import("~/models/invitations.server");
  const { getUserById } = await import("~/models/users.server");
  const made = await createInvitation((await getUserById(w.users.owner.id))!, {}, "http://localhost:3000");
  if (!made.ok) throw new Error("invitation refused");
  tokens.set(made.invitation.id, made.url.split("/").pop()!);
  return made.invitation.id;
}

// ---- the matrix: route file → probes ------------------------------------------------------

const MATRIX: Record<string, Probe[]> = {
  // pages
  "routes/home.tsx": [{ label: "GET", expect: all(200, 200) }],
  "routes/login.tsx": [{ label: "GET", expect: all(200, { redirect: "/" }) }],
  "routes/signup.tsx": [{ label: "GET", expect: all(200, { redirect: "/" }) }],
  "routes/logout.tsx": [{ label: "GET", expect: all({ redirect: "/" }, { redirect: "/" }) }],
  "routes/my-kids.tsx": [{ label: "GET", expect: all("login", 200) }],
  "routes/kid-new.tsx": [{ label: "GET", expect: all("login", 200) }],
  "routes/kid-update.tsx": [
    { label: "GET", params: kidParam("kidId"), expect: ownerPage() },
    { label: "POST (empty form)", method: "POST", params: kidParam("kidId"), body: () => ({ form: {} }), expect: ownerPage(400) },
  ],
  "routes/kid-moments.tsx": [{ label: "GET", params: kidParam("kidId"), expect: friendsPage }],
  "routes/moment-new.tsx": [
    { label: "GET", params: kidParam("kidId"), expect: ownerPage() },
    { label: "POST (empty form)", method: "POST", params: kidParam("kidId"), body: () => ({ form: {} }), expect: ownerPage(400) },
  ],
  "routes/moment.tsx": [{ label: "GET", params: logParam("dailyLogId"), expect: friendsPage }],
  "routes/moment-update.tsx": [
    { label: "GET", params: logParam("dailyLogId"), expect: ownerPage() },
    { label: "POST (empty form)", method: "POST", params: logParam("dailyLogId"), body: () => ({ form: {} }), expect: ownerPage(400) },
  ],
  "routes/moment-social.tsx": [
    // GET only sends to the moment page, which decides (no answer differs by access here)
    { label: "GET", params: logParam("dailyLogId"), expect: all("login", { redirect: "/dailyLogs/" }) },
    {
      label: "POST like",
      method: "POST",
      prepare: freshLog,
      params: (_w, _v, p) => ({ dailyLogId: String(p.logId) }),
      body: () => ({ form: { intent: "like" } }),
      expect: { signedOut: "login", stranger: 404, pending: 404, friend: { redirect: "/dailyLogs/" }, owner: { redirect: "/dailyLogs/" } },
    },
    {
      label: "POST comment",
      method: "POST",
      params: logParam("dailyLogId"),
      body: () => ({ form: { intent: "comment", comment: "So sweet" } }),
      expect: { signedOut: "login", stranger: 404, pending: 404, friend: { redirect: "/dailyLogs/" }, owner: { redirect: "/dailyLogs/" } },
    },
  ],
  "routes/friends.tsx": [{ label: "GET", expect: all("login", 200) }],
  "routes/friend-search.tsx": [{ label: "GET", query: "?q=a", expect: all("login", 200) }],
  "routes/profile-picture.tsx": [{ label: "GET", expect: all("login", 200) }],
  // invitations and sign-in links (issue #16): a link that is not (or no longer) valid is a clear
  // page for everyone; its use needs the token, not a session
  "routes/invite.tsx": [
    { label: "GET (unknown token)", params: () => ({ token: UNKNOWN_TOKEN }), expect: all(200, 200) },
    {
      label: "GET (pending invitation of the owner's)",
      prepare: async (w) => ({ invitation: await ownerInvitation(w) }),
      params: (_w, _v, p) => ({ token: tokens.get(p.invitation!)! }),
      expect: all(200, 200),
    },
    {
      label: "POST (empty form, unknown token)",
      method: "POST",
      params: () => ({ token: UNKNOWN_TOKEN }),
      body: () => ({ form: {} }),
      expect: all(400, { redirect: "/invite/" }),
    },
  ],
  "routes/login-email.tsx": [
    { label: "GET", expect: all(200, { redirect: "/" }) },
    { label: "POST", method: "POST", body: () => ({ form: { email: "nobody@example.com" } }), expect: all({ redirect: "/login/email?sent=1" }, { redirect: "/" }) },
  ],
  "routes/login-link.tsx": [
    { label: "GET (unknown token)", params: () => ({ token: UNKNOWN_TOKEN }), expect: all(200, 200) },
    { label: "POST (unknown token)", method: "POST", params: () => ({ token: UNKNOWN_TOKEN }), expect: all({ redirect: "/login/link/" }, { redirect: "/login/link/" }) },
  ],
  "routes/notifications.tsx": [{ label: "GET", expect: all("login", 200) }],
  "routes/settings-email.tsx": [
    { label: "GET", expect: all("login", 200) },
    { label: "POST (empty form)", method: "POST", body: () => ({ form: {} }), expect: all("login", 400) },
  ],
  // the signed link decides, not a session: a forged one is a clear page and changes nothing
  "routes/email-unsubscribe.tsx": [
    { label: "GET (forged link)", query: "?u=1&s=forged", expect: all(200, 200) },
    { label: "POST (forged link)", method: "POST", query: "?u=1&s=forged", body: () => ({ form: {} }), expect: all(200, 200) },
  ],
  // one's own account: everyone signed in gets their own, nobody anyone else's (docs/spec.md §2)
  "routes/settings.tsx": [
    { label: "GET", expect: all("login", 200) },
    { label: "POST (no intent)", method: "POST", body: () => ({ form: {} }), expect: all("login", 400) },
    {
      label: "POST end another user's session",
      method: "POST",
      prepare: () => sessionHandleOf(),
      body: () => ({ form: { intent: "end-session", session: lastHandle } }),
      expect: { signedOut: "login", stranger: 404, pending: 404, friend: 404, owner: { redirect: "/settings" } },
    },
  ],
  "routes/settings-delete.tsx": [
    { label: "GET", expect: all("login", 200) },
    { label: "POST (wrong password)", method: "POST", body: () => ({ form: { password: "wrong-password" } }), expect: all("login", 400) },
  ],
  "routes/settings-export.ts": [
    { label: "GET", expect: all("login", 200) },
    { label: "POST", method: "POST", body: () => ({ form: {} }), expect: all(405, 405) },
  ],
  "routes/not-found.tsx": [{ label: "GET", params: () => ({ "*": "no/such/page" }), expect: all(404, 404) }],

  // photos
  "routes/images.ts": [
    { label: "profile picture", params: imageParams("profile"), expect: all(404, 200) },
    { label: "kid photo", params: imageParams("kid"), expect: friendsImage },
    { label: "moment photo", params: imageParams("log"), expect: friendsImage },
  ],

  // JSON API
  "routes/api/auth.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/auth-login.ts": [{ label: "POST (no credentials)", method: "POST", body: () => ({ json: {} }), expect: all(401, 401) }],
  "routes/api/auth-signup.ts": [{ label: "POST (no fields)", method: "POST", body: () => ({ json: {} }), expect: all(401, 401) }],
  "routes/api/auth-logout.ts": [{ label: "GET", ownSession: true, expect: all(200, 200) }],
  "routes/api/auth-unauthorized.ts": [{ label: "GET", expect: all(401, 401) }],
  "routes/api/auth-magic-link.ts": [
    { label: "POST", method: "POST", body: () => ({ json: { email: "nobody@example.com" } }), expect: all(202, 202) },
  ],
  "routes/api/invites.ts": [
    { label: "GET", expect: all(401, 200) },
    { label: "POST", method: "POST", body: () => ({ json: { note: "Hi" } }), expect: all(401, 201) },
  ],
  "routes/api/invites-id.ts": [
    {
      // only the inviter revokes; for anyone else the invitation does not exist
      label: "DELETE",
      method: "DELETE",
      prepare: async (w) => ({ invitation: await ownerInvitation(w) }),
      params: (_w, _v, p) => ({ id: String(p.invitation) }),
      expect: { signedOut: 401, stranger: 404, pending: 404, friend: 404, owner: 200 },
    },
  ],
  "routes/api/notifications.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/notifications-read.ts": [{ label: "POST", method: "POST", body: () => ({ json: {} }), expect: all(401, 200) }],
  "routes/api/users-upload-profile-picture.ts": [
    { label: "POST", method: "POST", body: (w) => ({ form: pictureForm(w) }), expect: all(401, 201) },
  ],
  "routes/api/users-update-profile-picture.ts": [
    {
      label: "PUT",
      method: "PUT",
      prepare: async (w, v) => (v === "signedOut" ? {} : (await givePicture(w.users[v].id), {})),
      body: (w) => ({ form: pictureForm(w) }),
      expect: all(401, 200),
    },
  ],
  "routes/api/users-delete-profile-picture.ts": [
    {
      label: "DELETE",
      method: "DELETE",
      prepare: async (w, v) => (v === "signedOut" ? {} : (await givePicture(w.users[v].id), {})),
      expect: all(401, 200),
    },
  ],
  "routes/api/users-friends.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/users-current.ts": [
    { label: "GET", expect: all(401, 200) },
    { label: "PUT (no fields)", method: "PUT", body: () => ({ json: {} }), expect: all(401, 400) },
    { label: "DELETE (wrong password)", method: "DELETE", body: () => ({ json: { password: "wrong-password" } }), expect: all(401, 400) },
  ],
  "routes/api/users-current-password.ts": [
    { label: "PUT (wrong current password)", method: "PUT", body: () => ({ json: { current_password: "nope12", password: "secret2", confirmPassword: "secret2" } }), expect: all(401, 400) },
  ],
  "routes/api/users-current-sessions.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/users-current-sessions-id.ts": [
    {
      // the owner's session: only the owner may end it; to anyone else it does not exist
      label: "DELETE",
      method: "DELETE",
      prepare: () => sessionHandleOf(),
      params: () => ({ id: lastHandle }),
      expect: { signedOut: 401, stranger: 404, pending: 404, friend: 404, owner: 200 },
    },
  ],
  "routes/api/export.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/users-search.ts": [{ label: "GET", query: "?query=a", expect: all(401, 200) }],
  "routes/api/kids-current.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/kids-new.ts": [{ label: "POST", method: "POST", body: () => ({ form: kidForm() }), expect: all(401, 201) }],
  "routes/api/kids-id.ts": [
    { label: "GET", params: (w) => ({ id: String(w.kidId) }), expect: friendsApi(200) },
    { label: "PUT", method: "PUT", params: (w) => ({ id: String(w.kidId) }), body: () => ({ form: kidForm() }), expect: ownerApi(200) },
    {
      label: "DELETE",
      method: "DELETE",
      prepare: freshKid,
      params: (_w, _v, p) => ({ id: String(p.kidId) }),
      expect: ownerApi(200),
    },
  ],
  "routes/api/kids-daily-logs.ts": [{ label: "GET", params: kidParam("kidId"), expect: friendsApi(200) }],
  "routes/api/kids-daily-logs-new.ts": [
    { label: "POST", method: "POST", params: kidParam("kidId"), body: (w) => ({ form: momentForm(w, true) }), expect: ownerApi(201) },
  ],
  "routes/api/daily-logs-id.ts": [
    { label: "GET", params: (w) => ({ id: String(w.logId) }), expect: friendsApi(200) },
    { label: "PUT", method: "PUT", params: (w) => ({ id: String(w.logId) }), body: (w) => ({ form: momentForm(w, false) }), expect: ownerApi(200) },
    {
      label: "DELETE",
      method: "DELETE",
      prepare: freshLog,
      params: (_w, _v, p) => ({ id: String(p.logId) }),
      expect: ownerApi(200),
    },
  ],
  "routes/api/friendships-new.ts": [
    { label: "POST", method: "POST", body: (w) => ({ json: { friend_id: w.lonely.id } }), expect: all(401, 201) },
  ],
  "routes/api/friendships-current.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/friendships-update.ts": [
    {
      // a new request to the owner: only its receiver (the owner) may answer it
      label: "PUT",
      method: "PUT",
      prepare: async (w) => ({ friendshipId: await insertFriendship(await quickUser(), w.users.owner, "pending") }),
      params: (_w, _v, p) => ({ id: String(p.friendshipId) }),
      body: () => ({ json: { status: "accepted" } }),
      expect: ownerApi(200),
    },
  ],
  "routes/api/friendships-id.ts": [
    {
      // either party may delete: here the owner is the only party among the viewers
      label: "DELETE",
      method: "DELETE",
      prepare: async (w) => ({ friendshipId: await insertFriendship(await quickUser(), w.users.owner, "pending") }),
      params: (_w, _v, p) => ({ id: String(p.friendshipId) }),
      expect: ownerApi(200),
    },
  ],
  "routes/api/likes.ts": [{ label: "GET", params: logParam("dailyLogId"), expect: friendsApi(200) }],
  "routes/api/likes-like.ts": [
    {
      label: "POST",
      method: "POST",
      prepare: freshLog,
      params: (_w, _v, p) => ({ dailyLogId: String(p.logId) }),
      expect: friendsApi(201),
    },
  ],
  "routes/api/likes-unlike.ts": [
    {
      // the viewer's own like, left from earlier: only those who may see the moment may touch it
      label: "DELETE",
      method: "DELETE",
      prepare: async (w, v) => {
        const logId = await insertMoment(w.kidId, "Temp");
        if (v !== "signedOut") await insertLike(logId, w.users[v]);
        return { logId };
      },
      params: (_w, _v, p) => ({ dailyLogId: String(p.logId) }),
      expect: friendsApi(200),
    },
  ],
  "routes/api/comments.ts": [{ label: "GET", params: logParam("dailyLogId"), expect: friendsApi(200) }],
  "routes/api/comments-new.ts": [
    { label: "POST", method: "POST", params: logParam("dailyLogId"), body: () => ({ json: { comment: "Cute!" } }), expect: friendsApi(201) },
  ],
  "routes/api/comments-update.ts": [
    {
      // the friend's comment: only its author edits it (not even the moment's owner)
      label: "PUT",
      method: "PUT",
      prepare: async (w) => ({ commentId: await insertComment(w.logId, w.users.friend) }),
      params: (_w, _v, p) => ({ commentId: String(p.commentId) }),
      body: () => ({ json: { comment: "Edited" } }),
      expect: { signedOut: 401, stranger: 403, pending: 403, friend: 200, owner: 403 },
    },
  ],
  "routes/api/comments-id.ts": [
    {
      label: "DELETE",
      method: "DELETE",
      prepare: async (w) => ({ commentId: await insertComment(w.logId, w.users.friend) }),
      params: (_w, _v, p) => ({ commentId: String(p.commentId) }),
      expect: { signedOut: 401, stranger: 403, pending: 403, friend: 200, owner: 403 },
    },
  ],
  "routes/api/not-found.ts": [{ label: "GET", params: () => ({ "*": "no/such/thing" }), expect: all(401, 404) }],
};

// ---- the route list, read from app/routes.ts ----------------------------------------------

type RouteEntry = { path?: string; index?: boolean; file: string; children?: RouteEntry[] };
function flatten(entries: RouteEntry[], prefix = ""): { path: string; file: string }[] {
  return entries.flatMap((r) => {
    const full = r.index ? prefix || "/" : `${prefix}/${r.path ?? ""}`.replace(/\/+/g, "/");
    return [{ path: full, file: r.file }, ...flatten(r.children ?? [], full === "/" ? "" : full)];
  });
}
const ROUTES = flatten(routes as unknown as RouteEntry[]);

function urlFor(pattern: string, params: Record<string, string>, query = ""): string {
  const filled = pattern
    .split("/")
    .map((seg) => (seg.startsWith(":") ? encodeURIComponent(params[seg.slice(1)] ?? "") : seg === "*" ? (params["*"] ?? "") : seg))
    .join("/");
  return (filled || "/") + query;
}

// ---- running one cell -----------------------------------------------------------------------

type Answer = { status: number; location: string | null; error?: unknown; response?: Response };

async function answerOf(run: () => Promise<unknown>): Promise<Answer> {
  let value: unknown;
  try {
    value = await run();
  } catch (thrown) {
    value = thrown;
  }
  if (value instanceof Response) return { status: value.status, location: value.headers.get("Location"), response: value };
  const d = value as { type?: string; init?: { status?: number; headers?: HeadersInit } | null };
  if (d && d.type === "DataWithResponseInit") {
    return { status: d.init?.status ?? 200, location: new Headers(d.init?.headers).get("Location") };
  }
  if (isRouteErrorResponse(value)) return { status: value.status, location: null };
  if (value instanceof Error) return { status: 500, location: null, error: value };
  return { status: 200, location: null };
}

function matches(answer: Answer, want: Outcome): boolean {
  if (typeof want === "number") return answer.status === want;
  const isRedirect = answer.status >= 300 && answer.status < 400;
  if (want === "login") return isRedirect && (answer.location ?? "").startsWith("/login");
  return isRedirect && (answer.location ?? "").startsWith(want.redirect);
}

const describeOutcome = (o: Outcome) => (typeof o === "number" ? String(o) : o === "login" ? "→ /login" : `→ ${o.redirect}`);

let world: World;

beforeAll(async () => {
  const [owner, stranger, pending, friend] = [await makeUser(), await makeUser(), await makeUser(), await makeUser()];
  const celebrity = await quickUser(); // the profile picture: anyone's, visible to every signed-in user
  const lonely = await quickUser(); // the target of new friend requests
  await insertFriendship(pending, owner, "pending");
  await insertFriendship(owner, friend, "accepted");
  const kidPhoto = await storePhoto("kid", owner.id, "#3a7");
  const logPhoto = await storePhoto("log", owner.id, "#37a");
  const profilePhoto = await storePhoto("user", celebrity.id, "#a37");
  const kidId = await insertKid(owner, "Milo", kidPhoto.imageId);
  const logId = await insertMoment(kidId, "Beach day", logPhoto.imageId);
  world = {
    users: { owner, stranger, pending, friend },
    cookies: {
      signedOut: undefined,
      stranger: await cookieFor(stranger),
      pending: await cookieFor(pending),
      friend: await cookieFor(friend),
      owner: await cookieFor(owner),
    },
    kidId,
    logId,
    lonely,
    urls: { profile: photoUrl(profilePhoto), kid: photoUrl(kidPhoto), log: photoUrl(logPhoto) },
    jpeg: await sharp({ create: { width: 300, height: 200, channels: 3, background: "#c33" } }).jpeg().toBuffer(),
  };
});

describe("the access matrix covers the route list", () => {
  it("every route in app/routes.ts has an entry, and every entry is a route", () => {
    const files = ROUTES.map((r) => r.file);
    expect(files.filter((f) => !MATRIX[f]), "routes without a matrix entry").toEqual([]);
    expect(Object.keys(MATRIX).filter((f) => !files.includes(f)), "matrix entries for no route").toEqual([]);
    expect(new Set(files).size).toBe(files.length);
  });

  it("it has a photo of each kind and five viewers per probe", () => {
    expect(MATRIX["routes/images.ts"]!.map((p) => p.label)).toEqual(["profile picture", "kid photo", "moment photo"]);
    for (const probes of Object.values(MATRIX)) for (const p of probes) expect(Object.keys(p.expect).sort()).toEqual([...VIEWERS].sort());
  });
});

const appDir = path.resolve(import.meta.dirname, "../../app");
/** /api routes open to signed-out callers (their 401s, if any, are log-in failures, envelope A). */
const PUBLIC_API = new Set(["routes/api/auth-magic-link.ts", "routes/api/auth-login.ts", "routes/api/auth-signup.ts", "routes/api/auth-logout.ts", "routes/api/auth-unauthorized.ts"]);

for (const route of ROUTES) {
  describe(`${route.path} (${route.file})`, () => {
    for (const probe of MATRIX[route.file] ?? []) {
      for (const viewer of VIEWERS) {
        const want = probe.expect[viewer];
        it(`${probe.label} as ${viewer}: ${describeOutcome(want)}`, async () => {
          const mod = (await import(/* @vite-ignore */ path.join(appDir, route.file))) as {
            loader?: (a: never) => Promise<unknown>;
            action?: (a: never) => Promise<unknown>;
          };
          const method = probe.method ?? "GET";
          const prepared = (await probe.prepare?.(world, viewer)) ?? {};
          const params = probe.params?.(world, viewer, prepared) ?? {};
          const url = urlFor(route.path, params, probe.query);
          let cookie = world.cookies[viewer];
          if (probe.ownSession && viewer !== "signedOut") cookie = await cookieFor(world.users[viewer]);
          const body = probe.body?.(world) ?? {};
          const request = req(url, { method, cookie, ...body });
          const fn = method === "GET" ? mod.loader : mod.action;
          // a page without a loader is static: everyone gets it
          const answer = fn ? await answerOf(() => fn(args(request, params))) : { status: 200, location: null };
          if (answer.error) throw answer.error;
          expect(
            matches(answer, want),
            `${method} ${url} as ${viewer}: got ${answer.status}${answer.location ? ` → ${answer.location}` : ""}, want ${describeOutcome(want)}`,
          ).toBe(true);
          // /api answers JSON, never HTML or a redirect (but the export's ZIP); a refusal carries a message envelope
          if (route.path === "/api/export" && answer.status === 200) {
            expect(answer.response?.headers.get("Content-Type")).toBe("application/zip");
            await answer.response?.body?.cancel();
          } else if (route.path.startsWith("/api/") && answer.response) {
            expect(answer.response.headers.get("Content-Type")).toMatch(/^application\/json/);
            if (answer.status === 401 && viewer === "signedOut" && !PUBLIC_API.has(route.file)) {
              expect(await answer.response.json()).toEqual({ errors: { message: "Unauthorized" } });
            } else if (answer.status === 403 || answer.status === 404) {
              const body = await answer.response.json();
              expect(body.errors?.message ?? body.error?.message).toEqual(expect.any(String));
            }
          }
        });
      }
    }
  });
}

// ---- the guards, called directly --------------------------------------------------------------
// The same rule one level down: each guard of app/models/access.server.ts (and the list condition)
// for every kind of viewer, both directions of a friendship, and ids that do not exist.

const GUARD_VIEWERS = ["stranger", "pending", "denied", "invited", "friend", "fan", "owner"] as const;
type GuardViewer = (typeof GUARD_VIEWERS)[number];
/** Who sees the owner's kids: the owner and accepted friends, whoever sent the request. */
const SEES: Record<GuardViewer, boolean> = {
  stranger: false,
  pending: false, // asked the owner, not answered
  denied: false, // asked the owner, denied
  invited: false, // the owner asked them, not answered
  friend: true, // the owner asked them, accepted
  fan: true, // asked the owner, accepted
  owner: true,
};

const HIDDEN = { ok: false, kind: "forbidden", message: "You are not authorized", hidden: true };
const NOT_OWNER = { ok: false, kind: "forbidden", message: "You are not authorized" };

describe("the guards, called directly", () => {
  let g: {
    users: Record<GuardViewer, { id: number }>;
    kidId: number;
    momentId: number;
    otherMomentId: number;
    commentId: number;
    ownerId: number;
  };

  beforeAll(async () => {
    const users = Object.fromEntries(await Promise.all(GUARD_VIEWERS.map(async (v) => [v, await quickUser()] as const))) as Record<
      GuardViewer,
      { id: number }
    >;
    const { owner } = users;
    await insertFriendship(users.pending, owner, "pending");
    await insertFriendship(users.denied, owner, "denied");
    await insertFriendship(owner, users.invited, "pending");
    await insertFriendship(owner, users.friend, "accepted");
    await insertFriendship(users.fan, owner, "accepted");
    const kidId = await insertKid(owner, "Guarded");
    const momentId = await insertMoment(kidId, "Guarded moment");
    const otherMomentId = await insertMoment(kidId, "Another moment");
    const commentId = await insertComment(momentId, users.friend);
    g = { users, kidId, momentId, otherMomentId, commentId, ownerId: owner.id };
  });

  const access = () => import("~/models/access.server");
  const seen = (v: GuardViewer, isOwner = v === "owner") => ({ ok: true, isOwner });

  for (const viewer of GUARD_VIEWERS) {
    it(`canSeeKidsOf and canViewImage as ${viewer}`, async () => {
      const { canSeeKidsOf, canViewImage } = await access();
      const id = g.users[viewer].id;
      expect(await canSeeKidsOf(id, g.ownerId)).toBe(SEES[viewer]);
      expect(await canViewImage(id, { kind: "user", owner_id: g.ownerId })).toBe(true);
      expect(await canViewImage(id, { kind: "kid", owner_id: g.ownerId })).toBe(SEES[viewer]);
      expect(await canViewImage(id, { kind: "log", owner_id: g.ownerId })).toBe(SEES[viewer]);
      expect(await canViewImage(id, { kind: "something else", owner_id: g.ownerId })).toBe(false);
    });

    it(`requireKid as ${viewer}: view and change`, async () => {
      const { requireKid } = await access();
      const id = g.users[viewer].id;
      const kid = { kidId: g.kidId, ownerId: g.ownerId };
      expect(await requireKid(id, g.kidId, "view")).toEqual(SEES[viewer] ? { ...seen(viewer), ...kid } : HIDDEN);
      const change = viewer === "owner" ? { ...seen(viewer), ...kid } : SEES[viewer] ? NOT_OWNER : HIDDEN;
      expect(await requireKid(id, g.kidId, "change")).toEqual(change);
      // the row a caller already read decides alike
      expect(await requireKid(id, { id: g.kidId, ownerId: g.ownerId }, "change")).toEqual(change);
      expect(await requireKid(id, 999999, "view")).toEqual({ ok: false, kind: "not-found", message: "Kid not found" });
      expect(await requireKid(id, null, "change")).toEqual({ ok: false, kind: "not-found", message: "Kid not found" });
    });

    it(`requireMoment as ${viewer}: view and change`, async () => {
      const { requireMoment } = await access();
      const id = g.users[viewer].id;
      const moment = { momentId: g.momentId, kidId: g.kidId, ownerId: g.ownerId };
      expect(await requireMoment(id, g.momentId, "view")).toEqual(SEES[viewer] ? { ...seen(viewer), ...moment } : HIDDEN);
      const change = viewer === "owner" ? { ...seen(viewer), ...moment } : SEES[viewer] ? NOT_OWNER : HIDDEN;
      expect(await requireMoment(id, g.momentId, "change")).toEqual(change);
      expect(await requireMoment(id, { id: g.momentId, kidId: g.kidId, ownerId: g.ownerId }, "change")).toEqual(change);
      expect(await requireMoment(id, 999999, "view")).toEqual({ ok: false, kind: "not-found", message: "Daily log not found" });
    });

    it(`requireCommentAuthor as ${viewer} (the friend's comment)`, async () => {
      const { requireCommentAuthor } = await access();
      const id = g.users[viewer].id;
      const want =
        viewer === "friend" ? { ok: true, commentId: g.commentId, momentId: g.momentId } : SEES[viewer] ? NOT_OWNER : HIDDEN;
      expect(await requireCommentAuthor(id, g.commentId)).toEqual(want);
      expect(await requireCommentAuthor(id, g.commentId, { momentId: g.momentId })).toEqual(want);
      const notFound = { ok: false, kind: "not-found", message: "Comment not found" };
      // under another moment's id, or no such comment: not found, whoever asks
      expect(await requireCommentAuthor(id, g.commentId, { momentId: g.otherMomentId })).toEqual(notFound);
      expect(await requireCommentAuthor(id, 999999)).toEqual(notFound);
    });

    it(`whereVisibleTo lists the owner's kids to ${viewer} only when allowed`, async () => {
      const { whereVisibleTo } = await access();
      const { query } = await import("~/lib/query.server");
      const visibleKids = query<{ viewer: number; owner: number }>((p, k) =>
        whereVisibleTo(k("kids").where("kids.user_id", p("owner")), "kids.user_id", p("viewer")).select("kids.id"),
      );
      const rows = await visibleKids.all({ viewer: g.users[viewer].id, owner: g.ownerId });
      expect(rows.map((r) => r.id)).toEqual(SEES[viewer] ? [g.kidId] : []);
    });

    it(`whereKidVisibleTo and whereMomentVisibleTo list the owner's kid and moment to ${viewer} only when allowed`, async () => {
      const { whereKidVisibleTo, whereMomentVisibleTo } = await access();
      const { query } = await import("~/lib/query.server");
      const kids = query<{ viewer: number; owner: number }>((p, k) =>
        whereKidVisibleTo(k("kids").where("kids.user_id", p("owner")), p("viewer")).select("kids.id"),
      );
      const moments = query<{ viewer: number; moment: number }>((p, k) =>
        whereMomentVisibleTo(
          k("daily_logs").join("kids", "kids.id", "daily_logs.kid_id").where("daily_logs.id", p("moment")),
          p("viewer"),
        ).select("daily_logs.id"),
      );
      const id = g.users[viewer].id;
      expect((await kids.all({ viewer: id, owner: g.ownerId })).map((r) => r.id)).toEqual(SEES[viewer] ? [g.kidId] : []);
      expect((await moments.all({ viewer: id, moment: g.momentId })).map((r) => r.id)).toEqual(SEES[viewer] ? [g.momentId] : []);
    });
  }
});
