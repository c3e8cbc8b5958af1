// THE ACCESS MATRIX: for five viewers (signed out, stranger, pending requester, accepted friend,
// owner) it requests every page route, every /api route and a photo URL of each kind, through the
// real route modules with real Requests, and checks each cell against what docs/spec.md §6 and
// docs/api.md require. It reads app/routes.ts: a route without an entry here fails the test.
//
// Pages: signed out → redirect to /login; not visible → 404 (the plain not-found page); visible → 200
// (owner-only forms: 403 for a friend, who may see the kid but not change it).
// /api: signed out → 401; not allowed → 403; allowed → the success status of docs/api.md.
// Photos: not allowed (signed out included) → 404.
import crypto from "node:crypto";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { isRouteErrorResponse } from "react-router";
import routes from "~/routes";
import { originalUrl, photoUrl } from "~/images/photo";
import { clipUrl } from "~/video/clip";
import { insertReadyClip, type ReadyClip } from "./clip-fixtures";
import { DERIVATIVE_WIDTHS } from "~/images/process.server";
import type { StoredImage } from "~/images/storage.server";
import { db } from "~/lib/db.server";
import { pairOf } from "~/models/friendships.server";
import { args, cookieFor, makeUser, req } from "../helpers";
import { unzip } from "./support/unzip";
import {
  givePicture,
  insertBlock,
  insertCoParent,
  insertComment,
  fileFriend,
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
  /** the owner's draft moment (docs/decisions/0065-drafts.md): the owner's alone */
  draftId: number;
  lonely: { id: number };
  urls: {
    draft: string;
    /** a photo chosen in the owner's moment form, waiting for its alt text (decision 0067) */
    pendingPhoto: string;
    profile: string;
    kid: string;
    log: string;
    logThird: string;
    logOriginal: string;
    clipSmall: string;
    clipCaptions: string;
    clipPoster: string;
  };
  jpeg: Buffer;
};

/** What a cell sends. `prepare` runs first, for probes that use up or need their own rows. */
type Probe = {
  label: string;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  /** Path parameters (the URL is built from the route's path with them). */
  params?: (w: World, viewer: Viewer, prepared: Record<string, number>) => Record<string, string>;
  query?: string;
  body?: (w: World, prepared: Record<string, number>) => { json?: unknown; form?: Record<string, string> | FormData };
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
const ownerPage = (ok: Outcome = 200): Row => ({
  signedOut: "login",
  stranger: 404,
  pending: 404,
  friend: 403,
  owner: ok,
});
/** An /api call friends and the owner may make. */
const friendsApi = (ok: number): Row => ({ signedOut: 401, stranger: 403, pending: 403, friend: ok, owner: ok });
/** An /api call only the owner may make. */
const ownerApi = (ok: number): Row => ({ signedOut: 401, stranger: 403, pending: 403, friend: 403, owner: ok });
const friendsImage: Row = { signedOut: 404, stranger: 404, pending: 404, friend: 200, owner: 200 };
/** A draft's route or photo: its author's alone; everyone else, a friend too, as if it did not exist. */
const authorOnlyApi = (ok: number): Row => ({ signedOut: 401, stranger: 404, pending: 404, friend: 404, owner: ok });
const authorOnlyImage: Row = { signedOut: 404, stranger: 404, pending: 404, friend: 404, owner: 200 };

/** A draft moment of the owner's for the kid, with one photo (alt text and text filled: ready to publish). */
async function insertDraft(ownerId: number, kidId: number): Promise<{ draftId: number; photo: StoredImage }> {
  const photo = await storePhoto("moment", ownerId, "#7a3");
  const now = new Date().toISOString();
  const [row] = await db()("drafts")
    .insert({
      user_id: ownerId,
      kid_id: kidId,
      taken_on: "2024-05-01",
      title: "1 May 2024",
      content: "Park",
      created_at: now,
      updated_at: now,
    })
    .returning("id");
  const draftId = Number(typeof row === "object" ? row.id : row);
  await db()("draft_photos").insert({
    draft_id: draftId,
    image_id: photo.imageId,
    position: 0,
    alt: "Swings",
    name: "park.jpg",
  });
  return { draftId, photo };
}
const freshDraft = async (w: World) => ({ draftId: (await insertDraft(w.users.owner.id, w.kidId)).draftId });
const draftParam = (w: World) => ({ id: String(w.draftId) });

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

/** A multipart body of the "Move in" form without its archive. */
function noArchive(): FormData {
  const form = new FormData();
  form.set("kid_id", "");
  return form;
}

/** An import of the owner's (its id in `importId`). */
async function ownersImport(w: World): Promise<Record<string, number>> {
  const { startImport } = await import("~/imports/records.server");
  return { importId: await startImport(w.users.owner.id, "export", `matrix:${crypto.randomUUID()}`) };
}

/** A passkey of the owner (its id in `passkeyId`): only the owner may rename or remove it. */
async function ownersPasskey(w: World): Promise<Record<string, number>> {
  const rows = await db()("passkeys")
    .insert({
      user_id: w.users.owner.id,
      credential_id: crypto.randomBytes(16).toString("base64url"),
      public_key: "AA",
      counter: 0,
      transports: "",
      name: "Phone",
      created_at: new Date().toISOString(),
    })
    .returning("id");
  const first = rows[0] as number | { id: number };
  return { passkeyId: typeof first === "number" ? first : first.id };
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
  // every signed-in user has a feed; WHAT it lists per viewer: app/models/feed.server.test.ts
  "routes/feed.tsx": [{ label: "GET", expect: all("login", 200) }],
  "routes/kid-new.tsx": [{ label: "GET", expect: all("login", 200) }],
  "routes/kid-update.tsx": [
    { label: "GET", params: kidParam("kidId"), expect: ownerPage() },
    {
      label: "POST (empty form)",
      method: "POST",
      params: kidParam("kidId"),
      body: () => ({ form: {} }),
      expect: ownerPage(400),
    },
  ],
  "routes/kid-moments.tsx": [{ label: "GET", params: kidParam("kidId"), expect: friendsPage }],
  "routes/kid-milestones.tsx": [{ label: "GET", params: kidParam("kidId"), expect: friendsPage }],
  "routes/kid-timeline.tsx": [
    { label: "GET (index)", params: kidParam("kidId"), expect: friendsPage },
    { label: "GET (an age)", params: kidParam("kidId"), query: "?age=1", expect: friendsPage },
    { label: "GET (a month)", params: kidParam("kidId"), query: "?month=2024-03", expect: friendsPage },
  ],
  "routes/moment-new.tsx": [
    { label: "GET", params: kidParam("kidId"), expect: ownerPage() },
    {
      label: "POST (empty form)",
      method: "POST",
      params: kidParam("kidId"),
      body: () => ({ form: {} }),
      expect: ownerPage(400),
    },
  ],
  // draft moments (docs/decisions/0065-drafts.md): the pages of a kid's parents; the drafts on them the viewer's own
  "routes/kid-drafts.tsx": [
    { label: "GET", params: kidParam("kidId"), expect: ownerPage() },
    {
      label: "POST (no intent)",
      method: "POST",
      params: kidParam("kidId"),
      body: () => ({ form: {} }),
      expect: ownerPage(400),
    },
  ],
  "routes/kid-drafts-new.tsx": [
    { label: "GET", params: kidParam("kidId"), expect: ownerPage() },
    {
      label: "POST (a photo)",
      method: "POST",
      params: kidParam("kidId"),
      body: (w) => ({ form: pictureForm(w) }),
      expect: ownerPage({ redirect: "/kids/" }),
    },
  ],
  "routes/moment.tsx": [{ label: "GET", params: logParam("momentId"), expect: friendsPage }],
  // the photo viewer: every photo of the moment, then its clip (docs/decisions/0064-video-clips.md), as the moment
  "routes/moment-photo.tsx": [
    { label: "GET photo 1", params: (w) => ({ momentId: String(w.logId), n: "1" }), expect: friendsPage },
    { label: "GET photo 3 of 3", params: (w) => ({ momentId: String(w.logId), n: "3" }), expect: friendsPage },
    { label: "GET item 4: the clip", params: (w) => ({ momentId: String(w.logId), n: "4" }), expect: friendsPage },
    { label: "GET item 5 of 4", params: (w) => ({ momentId: String(w.logId), n: "5" }), expect: all("login", 404) },
  ],
  "routes/moment-update.tsx": [
    { label: "GET", params: logParam("momentId"), expect: ownerPage() },
    {
      label: "POST (empty form)",
      method: "POST",
      params: logParam("momentId"),
      body: () => ({ form: {} }),
      expect: ownerPage(400),
    },
  ],
  "routes/moment-social.tsx": [
    // GET only sends to the moment page, which decides (no answer differs by access here)
    { label: "GET", params: logParam("momentId"), expect: all("login", { redirect: "/dailyLogs/" }) },
    {
      label: "POST like",
      method: "POST",
      prepare: freshLog,
      params: (_w, _v, p) => ({ momentId: String(p.logId) }),
      body: () => ({ form: { intent: "like" } }),
      expect: {
        signedOut: "login",
        stranger: 404,
        pending: 404,
        friend: { redirect: "/dailyLogs/" },
        owner: { redirect: "/dailyLogs/" },
      },
    },
    {
      label: "POST comment",
      method: "POST",
      params: logParam("momentId"),
      body: () => ({ form: { intent: "comment", comment: "So sweet" } }),
      expect: {
        signedOut: "login",
        stranger: 404,
        pending: 404,
        friend: { redirect: "/dailyLogs/" },
        owner: { redirect: "/dailyLogs/" },
      },
    },
  ],
  "routes/friends.tsx": [{ label: "GET", expect: all("login", 200) }],
  // a friend's own page (the owner's, here): their friends only; the owner has no page as their own friend
  "routes/friend.tsx": [
    {
      label: "GET",
      params: (w) => ({ userId: String(w.users.owner.id) }),
      expect: { signedOut: "login", stranger: 404, pending: 404, friend: 200, owner: 404 },
    },
    {
      label: "POST circle",
      method: "POST",
      params: (w) => ({ userId: String(w.users.owner.id) }),
      body: () => ({ form: { intent: "label", circle: "friends", relationship: "" } }),
      expect: {
        signedOut: "login",
        stranger: 404,
        pending: 404,
        friend: { redirect: "/current/friends/" },
        owner: 404,
      },
    },
  ],
  "routes/friend-search.tsx": [{ label: "GET", query: "?q=a", expect: all("login", 200) }],
  "routes/profile-picture.tsx": [{ label: "GET", expect: all("login", 200) }],
  // invitations and sign-in links: a link that is not (or no longer) valid is a clear page for
  // everyone; its use needs the token, not a session
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
    {
      label: "POST",
      method: "POST",
      body: () => ({ form: { email: "nobody@example.com" } }),
      expect: all({ redirect: "/login/email?sent=1" }, { redirect: "/" }),
    },
  ],
  "routes/login-link.tsx": [
    { label: "GET (unknown token)", params: () => ({ token: UNKNOWN_TOKEN }), expect: all(200, 200) },
    {
      label: "POST (unknown token)",
      method: "POST",
      params: () => ({ token: UNKNOWN_TOKEN }),
      expect: all({ redirect: "/login/link/" }, { redirect: "/login/link/" }),
    },
  ],
  "routes/notifications.tsx": [
    { label: "GET", expect: all("login", 200) },
    {
      label: "POST (mark read up to 1)",
      method: "POST",
      body: () => ({ form: { intent: "mark-read", upTo: "1" } }),
      expect: all("login", { redirect: "/notifications" }),
    },
  ],
  "routes/settings-email.tsx": [
    { label: "GET", expect: all("login", 200) },
    { label: "POST (empty form)", method: "POST", body: () => ({ form: {} }), expect: all("login", 400) },
  ],
  // the signed link decides, not a session: a forged one is a clear page and changes nothing
  "routes/email-unsubscribe.tsx": [
    { label: "GET (forged link)", query: "?u=1&s=forged", expect: all(200, 200) },
    {
      label: "POST (forged link)",
      method: "POST",
      query: "?u=1&s=forged",
      body: () => ({ form: {} }),
      expect: all(200, 200),
    },
  ],
  // the undo link of an email change decides, not a session: an unknown one is a clear page
  "routes/email-undo.tsx": [
    { label: "GET (unknown token)", params: () => ({ token: UNKNOWN_TOKEN }), expect: all(200, 200) },
    { label: "POST (unknown token)", method: "POST", params: () => ({ token: UNKNOWN_TOKEN }), expect: all(409, 409) },
  ],
  "routes/kid-co-parents.tsx": [
    { label: "GET", params: kidParam("kidId"), expect: ownerPage() },
    {
      label: "POST (no intent)",
      method: "POST",
      params: kidParam("kidId"),
      body: () => ({ form: {} }),
      expect: ownerPage(400),
    },
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
    {
      label: "POST remove another user's passkey",
      method: "POST",
      prepare: ownersPasskey,
      body: (_w, p) => ({ form: { intent: "passkey-remove", passkey: String(p.passkeyId) } }),
      expect: { signedOut: "login", stranger: 404, pending: 404, friend: 404, owner: { redirect: "/settings" } },
    },
    {
      label: "POST rename another user's passkey",
      method: "POST",
      prepare: ownersPasskey,
      body: (_w, p) => ({ form: { intent: "passkey-rename", passkey: String(p.passkeyId), name: "Mine" } }),
      expect: { signedOut: "login", stranger: 404, pending: 404, friend: 404, owner: { redirect: "/settings" } },
    },
  ],
  "routes/settings-delete.tsx": [
    { label: "GET", expect: all("login", 200) },
    {
      label: "POST (wrong password)",
      method: "POST",
      body: () => ({ form: { password: "wrong-password" } }),
      expect: all("login", 400),
    },
  ],
  "routes/settings-export.ts": [
    { label: "GET", expect: all("login", 200) },
    { label: "POST", method: "POST", body: () => ({ form: {} }), expect: all(405, 405) },
  ],
  // "Move in" (docs/decisions/0066-imports.md): one's own; an import's result page is its account's alone
  "routes/settings-import.tsx": [
    { label: "GET", expect: all("login", 200) },
    { label: "POST (no file)", method: "POST", body: () => ({ form: noArchive() }), expect: all("login", 400) },
  ],
  "routes/settings-import-result.tsx": [
    {
      label: "GET (the owner's import)",
      prepare: ownersImport,
      params: (_w, _v, p) => ({ importId: String(p.importId) }),
      expect: { signedOut: "login", stranger: 404, pending: 404, friend: 404, owner: 200 },
    },
    {
      label: "POST (discard the owner's import)",
      method: "POST",
      prepare: ownersImport,
      params: (_w, _v, p) => ({ importId: String(p.importId) }),
      body: () => ({ form: {} }),
      expect: { signedOut: "login", stranger: 404, pending: 404, friend: 404, owner: { redirect: "/settings/import" } },
    },
  ],
  "routes/not-found.tsx": [{ label: "GET", params: () => ({ "*": "no/such/page" }), expect: all(404, 404) }],

  // photos
  "routes/images.ts": [
    { label: "profile picture", params: imageParams("profile"), expect: all(404, 200) },
    { label: "kid photo", params: imageParams("kid"), expect: friendsImage },
    { label: "moment photo", params: imageParams("log"), expect: friendsImage },
    { label: "moment's third photo", params: imageParams("logThird"), expect: friendsImage },
    { label: "moment photo at full size", params: imageParams("logOriginal"), expect: friendsImage },
    { label: "a clip's poster", params: imageParams("clipPoster"), expect: friendsImage },
    { label: "a draft's photo", params: imageParams("draft"), expect: authorOnlyImage },
    { label: "a photo waiting for its alt text", params: imageParams("pendingPhoto"), expect: authorOnlyImage },
  ],
  // clips (docs/decisions/0064-video-clips.md)
  "routes/videos.ts": [
    { label: "small rendition", params: imageParams("clipSmall"), expect: friendsImage },
    { label: "captions", params: imageParams("clipCaptions"), expect: friendsImage },
  ],

  // JSON API
  "routes/api/auth.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/auth-login.ts": [
    { label: "POST (no credentials)", method: "POST", body: () => ({ json: {} }), expect: all(401, 401) },
  ],
  "routes/api/auth-signup.ts": [
    { label: "POST (no fields)", method: "POST", body: () => ({ json: {} }), expect: all(401, 401) },
  ],
  "routes/api/auth-logout.ts": [{ label: "GET", ownSession: true, expect: all(200, 200) }],
  "routes/api/auth-unauthorized.ts": [{ label: "GET", expect: all(401, 401) }],
  "routes/api/auth-magic-link.ts": [
    { label: "POST", method: "POST", body: () => ({ json: { email: "nobody@example.com" } }), expect: all(202, 202) },
  ],
  "routes/api/auth-passkey-options.ts": [
    { label: "POST", method: "POST", body: () => ({ json: {} }), expect: all(200, 200) },
  ],
  "routes/api/auth-passkey.ts": [
    { label: "POST (no answer)", method: "POST", body: () => ({ json: {} }), expect: all(401, 401) },
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
  "routes/api/notifications-read.ts": [
    { label: "POST", method: "POST", body: () => ({ json: {} }), expect: all(401, 200) },
  ],
  "routes/api/users-upload-profile-picture.ts": [
    { label: "POST", method: "POST", body: (w) => ({ form: pictureForm(w) }), expect: all(401, 201) },
  ],
  "routes/api/users-update-profile-picture.ts": [
    {
      label: "PUT",
      method: "PUT",
      prepare: async (w, v) => {
        if (v !== "signedOut") await givePicture(w.users[v].id);
        return {};
      },
      body: (w) => ({ form: pictureForm(w) }),
      expect: all(401, 200),
    },
  ],
  "routes/api/users-delete-profile-picture.ts": [
    {
      label: "DELETE",
      method: "DELETE",
      prepare: async (w, v) => {
        if (v !== "signedOut") await givePicture(w.users[v].id);
        return {};
      },
      expect: all(401, 200),
    },
  ],
  "routes/api/users-friends.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/users-current.ts": [
    { label: "GET", expect: all(401, 200) },
    { label: "PUT (no fields)", method: "PUT", body: () => ({ json: {} }), expect: all(401, 400) },
    {
      label: "DELETE (wrong password)",
      method: "DELETE",
      body: () => ({ json: { password: "wrong-password" } }),
      expect: all(401, 400),
    },
  ],
  "routes/api/users-current-password.ts": [
    {
      label: "PUT (wrong current password)",
      method: "PUT",
      body: () => ({ json: { current_password: "nope12", password: "secret2", confirmPassword: "secret2" } }),
      expect: all(401, 400),
    },
  ],
  "routes/api/users-current-sessions.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/users-current-email-preferences.ts": [
    { label: "GET", expect: all(401, 200) },
    {
      label: "PUT",
      method: "PUT",
      body: () => ({ json: { moments: "now", comments: "digest", replies: "off", digest: "weekly", hour: 19 } }),
      expect: all(401, 200),
    },
  ],
  "routes/api/users-current-passkeys.ts": [
    { label: "GET", expect: all(401, 200) },
    { label: "POST (no answer)", method: "POST", body: () => ({ json: {} }), expect: all(401, 400) },
  ],
  "routes/api/users-current-passkeys-options.ts": [
    { label: "POST", method: "POST", body: () => ({ json: {} }), expect: all(401, 200) },
  ],
  "routes/api/users-current-passkeys-id.ts": [
    {
      // the owner's passkey: to anyone else it does not exist
      label: "PUT",
      method: "PUT",
      prepare: ownersPasskey,
      params: (_w, _v, p) => ({ id: String(p.passkeyId) }),
      body: () => ({ json: { name: "Renamed" } }),
      expect: { signedOut: 401, stranger: 404, pending: 404, friend: 404, owner: 200 },
    },
    {
      label: "DELETE",
      method: "DELETE",
      prepare: ownersPasskey,
      params: (_w, _v, p) => ({ id: String(p.passkeyId) }),
      expect: { signedOut: 401, stranger: 404, pending: 404, friend: 404, owner: 200 },
    },
  ],
  "routes/api/users-current-sign-in-links.ts": [
    { label: "GET", expect: all(401, 200) },
    { label: "DELETE", method: "DELETE", expect: all(401, 200) },
  ],
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
  "routes/api/imports.ts": [
    { label: "POST (no file)", method: "POST", body: () => ({ form: noArchive() }), expect: all(401, 400) },
  ],
  "routes/api/users-search.ts": [{ label: "GET", query: "?query=a", expect: all(401, 200) }],
  "routes/api/kids-current.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/kids-new.ts": [
    { label: "POST", method: "POST", body: () => ({ form: kidForm() }), expect: all(401, 201) },
  ],
  "routes/api/kids-id.ts": [
    { label: "GET", params: (w) => ({ id: String(w.kidId) }), expect: friendsApi(200) },
    {
      label: "PUT",
      method: "PUT",
      params: (w) => ({ id: String(w.kidId) }),
      body: () => ({ form: kidForm() }),
      expect: ownerApi(200),
    },
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
    {
      label: "POST",
      method: "POST",
      params: kidParam("kidId"),
      body: (w) => ({ form: momentForm(w, true) }),
      expect: ownerApi(201),
    },
  ],
  "routes/api/kids-pending-photos.ts": [
    {
      label: "POST",
      method: "POST",
      params: kidParam("kidId"),
      body: (w) => ({ form: pictureForm(w) }),
      expect: ownerApi(201),
    },
  ],
  "routes/api/daily-logs-id.ts": [
    { label: "GET", params: (w) => ({ id: String(w.logId) }), expect: friendsApi(200) },
    {
      label: "PUT",
      method: "PUT",
      params: (w) => ({ id: String(w.logId) }),
      body: (w) => ({ form: momentForm(w, false) }),
      expect: ownerApi(200),
    },
    {
      label: "DELETE",
      method: "DELETE",
      prepare: freshLog,
      params: (_w, _v, p) => ({ id: String(p.logId) }),
      expect: ownerApi(200),
    },
  ],
  "routes/api/kids-imports.ts": [
    {
      label: "POST (a photo)",
      method: "POST",
      params: kidParam("kidId"),
      body: (w) => ({ form: pictureForm(w) }),
      expect: ownerApi(201),
    },
  ],
  "routes/api/drafts-id.ts": [
    { label: "GET", params: draftParam, expect: authorOnlyApi(200) },
    {
      label: "PUT",
      method: "PUT",
      params: draftParam,
      body: () => ({ json: { title: "Park day", content: "Swings", taken_on: "2024-05-01" } }),
      expect: authorOnlyApi(200),
    },
    {
      label: "DELETE",
      method: "DELETE",
      prepare: freshDraft,
      params: (_w, _v, p) => ({ id: String(p.draftId) }),
      expect: authorOnlyApi(200),
    },
  ],
  "routes/api/drafts-publish.ts": [
    {
      label: "POST",
      method: "POST",
      prepare: freshDraft,
      params: (_w, _v, p) => ({ id: String(p.draftId) }),
      expect: authorOnlyApi(201),
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
  "routes/api/friendships-circle.ts": [
    {
      // a friendship of the owner's: only its parties may file each other
      label: "PUT",
      method: "PUT",
      prepare: async (w) => ({ friendshipId: await insertFriendship(await quickUser(), w.users.owner, "accepted") }),
      params: (_w, _v, p) => ({ id: String(p.friendshipId) }),
      body: () => ({ json: { circle: "family", relationship: "cousin" } }),
      expect: ownerApi(200),
    },
  ],
  "routes/api/blocks.ts": [
    { label: "GET", expect: all(401, 200) },
    {
      label: "POST",
      method: "POST",
      prepare: async () => ({ userId: (await quickUser()).id }),
      body: (_w, p) => ({ json: { user_id: p.userId } }),
      expect: all(401, 201),
    },
  ],
  "routes/api/blocks-id.ts": [
    {
      // the viewer's own block: only the blocker ends it
      label: "DELETE",
      method: "DELETE",
      prepare: async (w, v) => {
        const target = await quickUser();
        if (v !== "signedOut") await insertBlock(w.users[v], target);
        return { userId: target.id };
      },
      params: (_w, _v, p) => ({ userId: String(p.userId) }),
      expect: all(401, 200),
    },
  ],
  "routes/api/kids-co-parents.ts": [
    {
      label: "POST",
      method: "POST",
      prepare: freshKid,
      params: (_w, _v, p) => ({ id: String(p.kidId) }),
      body: (w) => ({ json: { user_id: w.users.friend.id } }),
      expect: ownerApi(201),
    },
  ],
  "routes/api/kids-co-parents-id.ts": [
    {
      // the friend co-parents a fresh kid: the owner removes them, or they leave
      label: "DELETE",
      method: "DELETE",
      prepare: async (w) => {
        const kidId = await insertKid(w.users.owner, "Shared");
        await insertCoParent(kidId, w.users.friend, "accepted");
        return { kidId };
      },
      params: (w, _v, p) => ({ id: String(p.kidId), userId: String(w.users.friend.id) }),
      expect: { signedOut: 401, stranger: 403, pending: 403, friend: 200, owner: 200 },
    },
  ],
  "routes/api/kids-show-to-friends.ts": [
    {
      // a kid handed over to the owner, hidden from their friends: only the owner shows it
      label: "POST",
      method: "POST",
      prepare: async (w) => {
        const kidId = await insertKid(w.users.owner, "Handed");
        await db()("kids").where({ id: kidId }).update({ shown_to_friends: false });
        return { kidId };
      },
      params: (_w, _v, p) => ({ id: String(p.kidId) }),
      expect: ownerApi(200),
    },
  ],
  "routes/api/co-parent-invitations.ts": [{ label: "GET", expect: all(401, 200) }],
  "routes/api/co-parent-invitations-id.ts": [
    {
      // an invitation to the friend: only they answer it; to anyone else it does not exist
      label: "PUT",
      method: "PUT",
      prepare: async (w) => ({
        invitationId: await insertCoParent(await insertKid(w.users.owner, "Invited"), w.users.friend, "pending"),
      }),
      params: (_w, _v, p) => ({ id: String(p.invitationId) }),
      body: () => ({ json: { status: "accepted" } }),
      expect: { signedOut: 401, stranger: 404, pending: 404, friend: 200, owner: 404 },
    },
  ],
  "routes/api/likes.ts": [{ label: "GET", params: logParam("momentId"), expect: friendsApi(200) }],
  "routes/api/likes-like.ts": [
    {
      label: "POST",
      method: "POST",
      prepare: freshLog,
      params: (_w, _v, p) => ({ momentId: String(p.logId) }),
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
      params: (_w, _v, p) => ({ momentId: String(p.logId) }),
      expect: friendsApi(200),
    },
  ],
  "routes/api/comments.ts": [{ label: "GET", params: logParam("momentId"), expect: friendsApi(200) }],
  "routes/api/comments-new.ts": [
    {
      label: "POST",
      method: "POST",
      params: logParam("momentId"),
      body: () => ({ json: { comment: "Cute!" } }),
      expect: friendsApi(201),
    },
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
    .map((seg) =>
      seg.startsWith(":") ? encodeURIComponent(params[seg.slice(1)] ?? "") : seg === "*" ? (params["*"] ?? "") : seg,
    )
    .join("/");
  return (filled || "/") + query;
}

// ---- running one cell -----------------------------------------------------------------------

type Answer = { status: number; location: string | null; error?: unknown; response?: Response; data?: unknown };

async function answerOf(run: () => Promise<unknown>): Promise<Answer> {
  let value: unknown;
  try {
    value = await run();
  } catch (thrown) {
    value = thrown;
  }
  if (value instanceof Response)
    return { status: value.status, location: value.headers.get("Location"), response: value };
  const d = value as { type?: string; init?: { status?: number; headers?: HeadersInit } | null };
  if (d && d.type === "DataWithResponseInit") {
    return {
      status: d.init?.status ?? 200,
      location: new Headers(d.init?.headers).get("Location"),
      data: (d as { data?: unknown }).data,
    };
  }
  if (isRouteErrorResponse(value)) return { status: value.status, location: null };
  if (value instanceof Error) return { status: 500, location: null, error: value };
  return { status: 200, location: null, data: value };
}

function matches(answer: Answer, want: Outcome): boolean {
  if (typeof want === "number") return answer.status === want;
  const isRedirect = answer.status >= 300 && answer.status < 400;
  if (want === "login") return isRedirect && (answer.location ?? "").startsWith("/login");
  return isRedirect && (answer.location ?? "").startsWith(want.redirect);
}

const describeOutcome = (o: Outcome) =>
  typeof o === "number" ? String(o) : o === "login" ? "→ /login" : `→ ${o.redirect}`;

let world: World;

beforeAll(async () => {
  const [owner, stranger, pending, friend] = [await makeUser(), await makeUser(), await makeUser(), await makeUser()];
  const celebrity = await quickUser(); // the profile picture: anyone's, visible to every signed-in user
  const lonely = await quickUser(); // the target of new friend requests
  await insertFriendship(pending, owner, "pending");
  await insertFriendship(owner, friend, "accepted");
  const kidPhoto = await storePhoto("kid", owner.id, "#3a7");
  const logPhoto = await storePhoto("moment", owner.id, "#37a");
  const profilePhoto = await storePhoto("user", celebrity.id, "#a37");
  const kidId = await insertKid(owner, "Milo", kidPhoto.imageId);
  const logId = await insertMoment(kidId, "Beach day", logPhoto.imageId);
  // a multi-photo moment (docs/decisions/0030-several-photos-per-moment.md): its third photo
  const thirdPhoto = await addMomentPhotos(logId, owner.id, 2);
  const clip = await insertReadyClip(logId, owner.id);
  const draft = await insertDraft(owner.id, kidId);
  const pendingPhoto = await storePhoto("moment", owner.id, "#a73");
  await db()("pending_photos").insert({
    image_id: pendingPhoto.imageId,
    uploader_id: owner.id,
    kid_id: kidId,
    taken_on: null,
    created_at: new Date().toISOString(),
  });
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
    draftId: draft.draftId,
    lonely,
    urls: {
      draft: photoUrl(draft.photo),
      pendingPhoto: photoUrl(pendingPhoto),
      profile: photoUrl(profilePhoto),
      kid: photoUrl(kidPhoto),
      log: photoUrl(logPhoto),
      logThird: photoUrl(thirdPhoto),
      logOriginal: originalUrl(logPhoto)!,
      clipSmall: clipUrl(clip, "small"),
      clipCaptions: clipUrl(clip, "captions"),
      clipPoster: photoUrl(clip.poster),
    },
    jpeg: await sharp({ create: { width: 300, height: 200, channels: 3, background: "#c33" } })
      .jpeg()
      .toBuffer(),
  };
});

describe("the access matrix covers the route list", () => {
  it("every route in app/routes.ts has an entry, and every entry is a route", () => {
    const files = ROUTES.map((r) => r.file);
    expect(
      files.filter((f) => !MATRIX[f]),
      "routes without a matrix entry",
    ).toEqual([]);
    expect(
      Object.keys(MATRIX).filter((f) => !files.includes(f)),
      "matrix entries for no route",
    ).toEqual([]);
    expect(new Set(files).size).toBe(files.length);
  });

  it("it has a photo of each kind and five viewers per probe", () => {
    expect(MATRIX["routes/images.ts"]!.map((p) => p.label)).toEqual([
      "profile picture",
      "kid photo",
      "moment photo",
      "moment's third photo",
      "moment photo at full size",
      "a clip's poster",
      "a draft's photo",
      "a photo waiting for its alt text",
    ]);
    for (const probes of Object.values(MATRIX))
      for (const p of probes) expect(Object.keys(p.expect).sort()).toEqual([...VIEWERS].sort());
  });
});

const appDir = path.resolve(import.meta.dirname, "../../app");
/** /api routes open to signed-out callers (their 401s, if any, are log-in failures, envelope A). */
const PUBLIC_API = new Set([
  "routes/api/auth-magic-link.ts",
  "routes/api/auth-passkey-options.ts",
  "routes/api/auth-passkey.ts",
  "routes/api/auth-login.ts",
  "routes/api/auth-signup.ts",
  "routes/api/auth-logout.ts",
  "routes/api/auth-unauthorized.ts",
]);

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
          const body = probe.body?.(world, prepared) ?? {};
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
    kidImageId: number;
    momentImageId: number;
    /** Each viewer's friendship with the owner (none for the stranger and the owner). */
    friendships: Partial<Record<GuardViewer, number>>;
  };

  beforeAll(async () => {
    const users = Object.fromEntries(
      await Promise.all(GUARD_VIEWERS.map(async (v) => [v, await quickUser()] as const)),
    ) as Record<GuardViewer, { id: number }>;
    const { owner } = users;
    const friendships = {
      pending: await insertFriendship(users.pending, owner, "pending"),
      denied: await insertFriendship(users.denied, owner, "denied"),
      invited: await insertFriendship(owner, users.invited, "pending"),
      friend: await insertFriendship(owner, users.friend, "accepted"),
      fan: await insertFriendship(users.fan, owner, "accepted"),
    };
    const kidImage = await storePhoto("kid", owner.id, "#3a7");
    const momentImage = await storePhoto("moment", owner.id, "#37a");
    const kidId = await insertKid(owner, "Guarded", kidImage.imageId);
    const momentId = await insertMoment(kidId, "Guarded moment", momentImage.imageId);
    const otherMomentId = await insertMoment(kidId, "Another moment");
    const commentId = await insertComment(momentId, users.friend);
    g = {
      users,
      kidId,
      momentId,
      otherMomentId,
      commentId,
      ownerId: owner.id,
      kidImageId: kidImage.imageId,
      momentImageId: momentImage.imageId,
      friendships,
    };
  });

  const access = () => import("~/models/access.server");
  const seen = (v: GuardViewer, isOwner = v === "owner") => ({ ok: true, isOwner, isParent: isOwner });

  for (const viewer of GUARD_VIEWERS) {
    it(`canSeeKidsOf and canViewImage as ${viewer}`, async () => {
      const { canSeeKidsOf, canViewImage } = await access();
      const id = g.users[viewer].id;
      expect(await canSeeKidsOf(id, g.ownerId)).toBe(SEES[viewer]);
      expect(await canViewImage(id, { id: g.kidImageId, kind: "user", owner_id: g.ownerId })).toBe(true);
      expect(await canViewImage(id, { id: g.kidImageId, kind: "kid", owner_id: g.ownerId })).toBe(SEES[viewer]);
      expect(await canViewImage(id, { id: g.momentImageId, kind: "moment", owner_id: g.ownerId })).toBe(SEES[viewer]);
      expect(await canViewImage(id, { id: g.momentImageId, kind: "something else", owner_id: g.ownerId })).toBe(false);
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
      expect(await requireMoment(id, g.momentId, "view")).toEqual(
        SEES[viewer] ? { ...seen(viewer), ...moment } : HIDDEN,
      );
      const change = viewer === "owner" ? { ...seen(viewer), ...moment } : SEES[viewer] ? NOT_OWNER : HIDDEN;
      expect(await requireMoment(id, g.momentId, "change")).toEqual(change);
      expect(await requireMoment(id, { id: g.momentId, kidId: g.kidId, ownerId: g.ownerId }, "change")).toEqual(change);
      expect(await requireMoment(id, 999999, "view")).toEqual({
        ok: false,
        kind: "not-found",
        message: "Daily log not found",
      });
    });

    it(`requireCommentAuthor as ${viewer} (the friend's comment)`, async () => {
      const { requireCommentAuthor } = await access();
      const id = g.users[viewer].id;
      const want =
        viewer === "friend"
          ? { ok: true, commentId: g.commentId, momentId: g.momentId }
          : SEES[viewer]
            ? NOT_OWNER
            : HIDDEN;
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
      const visibleKids = query<{ viewer: number; owner: number }, { id: number }>((p, k) =>
        whereVisibleTo(k("kids").where("kids.user_id", p("owner")), "kids.user_id", p("viewer")).select("kids.id"),
      );
      const rows = await visibleKids.all({ viewer: g.users[viewer].id, owner: g.ownerId });
      expect(rows.map((r) => r.id)).toEqual(SEES[viewer] ? [g.kidId] : []);
    });

    it(`whereKidVisibleTo and whereMomentVisibleTo list the owner's kid and moment to ${viewer} only when allowed`, async () => {
      const { whereKidVisibleTo, whereMomentVisibleTo } = await access();
      const { query } = await import("~/lib/query.server");
      const kids = query<{ viewer: number; owner: number }, { id: number }>((p, k) =>
        whereKidVisibleTo(k("kids").where("kids.user_id", p("owner")), p("viewer")).select("kids.id"),
      );
      const moments = query<{ viewer: number; moment: number }, { id: number }>((p, k) =>
        whereMomentVisibleTo(
          k("daily_logs").join("kids", "kids.id", "daily_logs.kid_id").where("daily_logs.id", p("moment")),
          p("viewer"),
        ).select("daily_logs.id"),
      );
      const id = g.users[viewer].id;
      expect((await kids.all({ viewer: id, owner: g.ownerId })).map((r) => r.id)).toEqual(
        SEES[viewer] ? [g.kidId] : [],
      );
      expect((await moments.all({ viewer: id, moment: g.momentId })).map((r) => r.id)).toEqual(
        SEES[viewer] ? [g.momentId] : [],
      );
    });

    it(`visibleKidIds (the feed's kids, from the viewer's side of the pair) holds the owner's kid for ${viewer} only when allowed`, async () => {
      const { visibleKidIds } = await access();
      const { query } = await import("~/lib/query.server");
      const visible = query<{ viewer: number; kid: number }, { id: number }>((p, k) =>
        k("kids")
          .where("kids.id", p("kid"))
          .whereIn("kids.id", visibleKidIds(k, p("viewer")))
          .select("kids.id"),
      );
      expect((await visible.all({ viewer: g.users[viewer].id, kid: g.kidId })).map((r) => r.id)).toEqual(
        SEES[viewer] ? [g.kidId] : [],
      );
    });

    it(`requireFriendshipParty as ${viewer}: only the two parties, on their own side`, async () => {
      const { requireFriendshipParty } = await access();
      const id = g.users[viewer].id;
      const notFound = { ok: false, kind: "not-found", message: "Friendship not found" };
      expect(await requireFriendshipParty(id, 999999)).toEqual(notFound);
      const own = g.friendships[viewer];
      if (own !== undefined) {
        expect(await requireFriendshipParty(id, own)).toEqual({
          ok: true,
          friendshipId: own,
          side: id < g.ownerId ? "low" : "high",
          accepted: SEES[viewer],
        });
        // the owner is the other party of the same row
        expect(await requireFriendshipParty(g.ownerId, own)).toEqual({
          ok: true,
          friendshipId: own,
          side: id < g.ownerId ? "high" : "low",
          accepted: SEES[viewer],
        });
      }
      // someone else's friendship (the friend's, or the pending one for the friend): not a party
      const others = viewer === "friend" ? g.friendships.pending! : g.friendships.friend!;
      if (viewer !== "owner") expect(await requireFriendshipParty(id, others)).toEqual(NOT_OWNER);
    });
  }
});

// ---- a blocked author across digest, notifications and export ---------------------------------
// What someone in a block with the reader did (their comments, their likes) never reaches the
// reader through the channels that carry it to them: the email digest, the notifications (page
// and /api) and the export ZIP (the settings page's download and /api/export). A block is two-way
// here, as the access module defines it (whereNoBlockWith, like isBlockedBetween): nothing of the
// blocked reaches the blocker, nothing of the blocker reaches the blocked. Each channel is read
// before the block, when it carries the other's words (so these checks can fail), and after.

describe("a blocked author across digest, notifications and export", () => {
  type Person = { id: number; cookie: string; name: string; word: string; momentId: number };
  let blocker: Person;
  let blocked: Person;
  let bystander: Person;
  const EPOCH = "1970-01-01T00:00:00.000Z";

  beforeAll(async () => {
    const { likeMoment } = await import("~/models/likes.server");
    const { addComment } = await import("~/models/comments.server");
    const person = async (first: string, last: string, word: string): Promise<Person> => {
      const user = await makeUser({ first_name: first, last_name: last });
      const kidId = await insertKid(user, `${first}'s kid`);
      return {
        id: user.id,
        cookie: await cookieFor(user),
        name: `${first} ${last}`,
        word,
        momentId: await insertMoment(kidId, `${first}'s moment`),
      };
    };
    blocker = await person("Bea", "Blockwell", "Words of Bea");
    blocked = await person("Ben", "Blockedson", "Words of Ben");
    bystander = await person("Cleo", "Bystander", "Words of Cleo");
    await insertFriendship(blocker, blocked, "accepted");
    await insertFriendship(bystander, blocker, "accepted");
    await insertFriendship(bystander, blocked, "accepted");
    // through the models, so the notifications are written as the app writes them
    const act = async (who: Person, on: Person, word = who.word) => {
      expect((await likeMoment(who.id, on.momentId)).ok).toBe(true);
      expect((await addComment(who.id, on.momentId, `${word} on ${on.name}'s moment`)).ok).toBe(true);
    };
    await act(blocked, blocker);
    await act(blocker, blocked);
    await act(bystander, blocker);
    await act(bystander, blocked);
    // a thread on the bystander's moment: each of the two is told of the other's reply there
    await addComment(blocker.id, bystander.momentId, `${blocker.word}, first`);
    await addComment(blocked.id, bystander.momentId, `${blocked.word}, second`);
    await addComment(blocker.id, bystander.momentId, `${blocker.word}, third`);
  });

  /** Who of `reader`'s digest commented (the digest carries comments on the reader's own moments). */
  const digestAuthors = async (reader: Person) => {
    const { digestContent } = await import("~/mail/digest.server");
    const content = await digestContent(reader.id, EPOCH, new Date(Date.now() + 60_000).toISOString());
    return { ids: content.comments.map((c) => c.authorId), text: content.comments.map((c) => c.text).join("\n") };
  };
  /** The actors of `reader`'s notifications, on the page and on /api. */
  const notificationActors = async (reader: Person) => {
    const pageModule = await import("~/routes/notifications");
    const apiModule = await import("~/routes/api/notifications");
    const onPage = (await pageModule.loader(args(req("/notifications", { cookie: reader.cookie })) as never)) as {
      notifications: { actors: { id: number }[] }[];
    };
    const response = (await apiModule.loader(
      args(req("/api/notifications", { cookie: reader.cookie })) as never,
    )) as Response;
    expect(response.status).toBe(200);
    const onApi = (await response.json()) as { notifications: { actors: { id: number }[] }[] };
    const ids = (list: { actors: { id: number }[] }[]) =>
      [...new Set(list.flatMap((n) => n.actors.map((a) => a.id)))].sort();
    return { page: ids(onPage.notifications), api: ids(onApi.notifications) };
  };
  /** Everything of `reader`'s export ZIP as text (data.json and the album), from the settings page and from /api. */
  const exports = async (reader: Person) => {
    const out: { likes: string[]; comments: string[]; text: string }[] = [];
    for (const [file, url] of [
      ["routes/settings-export.ts", "/settings/export"],
      ["routes/api/export.ts", "/api/export"],
    ] as const) {
      const mod = (await import(/* @vite-ignore */ path.join(appDir, file))) as {
        loader: (a: never) => Promise<Response>;
      };
      const response = await mod.loader(args(req(url, { cookie: reader.cookie })) as never);
      expect([url, response.status, response.headers.get("Content-Type")]).toEqual([url, 200, "application/zip"]);
      const entries = new Map(
        [...(await unzip(Buffer.from(await response.arrayBuffer())))].map(([name, bytes]) => [
          name,
          bytes.toString("utf8"),
        ]),
      );
      const json = JSON.parse([...entries].find(([name]) => name.endsWith("/data.json"))![1]) as {
        kids: { moments: { likes: { by: string }[]; comments: { by: string; comment: string }[] }[] }[];
      };
      const moments = json.kids.flatMap((k) => k.moments);
      out.push({
        likes: moments.flatMap((m) => m.likes.map((l) => l.by)).sort(),
        comments: moments.flatMap((m) => m.comments.map((c) => c.by)).sort(),
        text: [...entries.values()].join("\n"),
      });
    }
    return out;
  };

  /** Checks every channel of `reader` for `other`'s likes and comments: present (`carries`) or absent. */
  async function expectChannels(reader: Person, other: Person, carries: boolean) {
    const digest = await digestAuthors(reader);
    expect(digest.ids.includes(other.id), `${reader.name}'s digest has ${other.name}'s comment`).toBe(carries);
    expect(digest.text.includes(other.word), `${reader.name}'s digest has ${other.name}'s words`).toBe(carries);
    expect(digest.ids, `${reader.name}'s digest still has the bystander's comment`).toContain(bystander.id);
    const actors = await notificationActors(reader);
    for (const [where, ids] of Object.entries(actors)) {
      expect(ids.includes(other.id), `${reader.name}'s notifications (${where}) name ${other.name}`).toBe(carries);
      expect(ids, `${reader.name}'s notifications (${where}) still name the bystander`).toContain(bystander.id);
    }
    for (const zip of await exports(reader)) {
      expect(zip.likes.includes(other.name), `${reader.name}'s export has ${other.name}'s like`).toBe(carries);
      expect(zip.comments.includes(other.name), `${reader.name}'s export has ${other.name}'s comment`).toBe(carries);
      expect(zip.text.includes(other.word), `${reader.name}'s export has ${other.name}'s words anywhere`).toBe(carries);
      expect([zip.likes, zip.comments], `${reader.name}'s export still has the bystander's like and comment`).toEqual([
        expect.arrayContaining([bystander.name]),
        expect.arrayContaining([bystander.name]),
      ]);
    }
  }

  /** The block (blocking again answers the same: each test may start with it). */
  const block = async () => {
    const { blockUser } = await import("~/models/blocks.server");
    expect((await blockUser(blocker.id, blocked.id)).ok).toBe(true);
  };

  it("before the block each channel carries the other's likes and comments; after it, in neither direction", async () => {
    await expectChannels(blocker, blocked, true);
    await expectChannels(blocked, blocker, true);
    await block();
    await expectChannels(blocker, blocked, false);
    await expectChannels(blocked, blocker, false);
  });

  it("the blocker's choice to show the blocked user's past comments on their pages brings nothing back to these channels", async () => {
    const { showBlockedComments } = await import("~/models/blocks.server");
    await block();
    expect((await showBlockedComments(blocker.id, blocked.id, true)).ok).toBe(true);
    try {
      await expectChannels(blocker, blocked, false);
      await expectChannels(blocked, blocker, false);
    } finally {
      await showBlockedComments(blocker.id, blocked.id, false);
    }
  });

  it("after the block, a reply in a thread both are in still reaches neither, and still reaches the moment's owner", async () => {
    const { addComment } = await import("~/models/comments.server");
    await block();
    expect((await addComment(blocked.id, bystander.momentId, `${blocked.word}, after the block`)).ok).toBe(true);
    expect((await addComment(blocker.id, bystander.momentId, `${blocker.word}, after the block`)).ok).toBe(true);
    expect((await notificationActors(blocker)).api).not.toContain(blocked.id);
    expect((await notificationActors(blocked)).api).not.toContain(blocker.id);
    expect((await notificationActors(bystander)).api).toEqual(expect.arrayContaining([blocker.id, blocked.id]));
  });
});

// ---- who sees what: actors × audiences × surfaces (docs/decisions/0031-*) -----------------------
// Eight actors around one kid and its three moments, one per audience, each with a photo: the
// kid's owner, a co-parent, a friend the owner filed in the Family circle, a friend in the
// Friends circle, a pending requester, a user the owner blocked (who was a Family friend and a
// co-parent until then), a stranger, and nobody signed in. Every page, /api route and photo URL
// (every derivative width) that shows a moment, or what hangs off it, is asked by each of them;
// every call that changes a moment, a like or a comment is tried by each of them, and a refused
// one must leave the rows as they were.

const ACTORS = ["owner", "coParent", "family", "friendsCircle", "pending", "blocked", "stranger", "signedOut"] as const;
type Actor = (typeof ACTORS)[number];
const AUDIENCE_LIST = ["us", "family", "everyone"] as const;
type Aud = (typeof AUDIENCE_LIST)[number];
/** The grid's photos: wide enough for every derivative width the image module makes. */
const LARGE = { width: 1600, height: 1200 };

/** The rule of docs/spec.md §6, written out independently of the code. */
function seesMoment(actor: Actor, audience: Aud): boolean {
  if (actor === "owner" || actor === "coParent") return true;
  if (actor === "family") return audience !== "us";
  if (actor === "friendsCircle") return audience === "everyone";
  return false;
}
const seesKid = (actor: Actor) => ["owner", "coParent", "family", "friendsCircle"].includes(actor);
const isParent = (actor: Actor) => actor === "owner" || actor === "coParent";

type Circles = {
  users: Record<Exclude<Actor, "signedOut">, { id: number; username: string }>;
  cookies: Record<Actor, string | undefined>;
  kidId: number;
  /** `photos`: every photo of the moment (three: a multi-photo moment), the first being `photo`. */
  moments: Record<
    Aud,
    {
      id: number;
      photo: { key: string; widths: number[] };
      photos: { key: string; widths: number[] }[];
      /** A prepared clip of the moment (docs/decisions/0064-video-clips.md). */
      clip: ReadyClip;
    }
  >;
  /** The month of the moments' own date (their timeline page: ?month=). */
  month: string;
  blockedCommentId: number;
};

let cw: Circles;

type Surface = {
  name: string;
  /** Asks the surface about the moment of `audience` as `actor`; answers whether the actor got it. */
  run: (actor: Actor, audience: Aud) => Promise<{ got: boolean; detail: string }>;
  /** What the actor must get (default: the moment, when they may see it). */
  want?: (actor: Actor, audience: Aud) => boolean;
  /** It changes rows (a like, a comment, the moment): the audience-change test asks only the others. */
  writes?: boolean;
};

type CallInit = { method?: string; json?: unknown; form?: Record<string, string>; path: string };

async function call(file: string, params: Record<string, string>, actor: Actor, init: CallInit) {
  const mod = (await import(/* @vite-ignore */ path.join(appDir, file))) as {
    loader?: (a: never) => Promise<unknown>;
    action?: (a: never) => Promise<unknown>;
  };
  const method = init.method ?? "GET";
  const body = init.json !== undefined ? { json: init.json } : init.form ? { form: init.form } : {};
  const request = req(init.path, { method: method as "GET", cookie: cw.cookies[actor], ...body });
  const fn = method === "GET" ? mod.loader : mod.action;
  const answer = await answerOf(() => fn!(args(request, params)));
  if (answer.error) throw answer.error;
  return answer;
}

const momentOf = (a: Aud) => cw.moments[a].id;
const titleOf = (a: Aud) => `For ${a}`;
const statusOf = (a: Answer) => `${a.status}${a.location ? ` → ${a.location}` : ""}`;
const page = (file: string, pathOf: (id: number) => string, param: string): Surface => ({
  name: `page ${pathOf(0).replace("/0", "/:id")}`,
  run: async (actor, aud) => {
    const a = await call(file, { [param]: String(momentOf(aud)) }, actor, { path: pathOf(momentOf(aud)) });
    return { got: a.status === 200, detail: statusOf(a) };
  },
});
const api = (file: string, pathOf: (id: number) => string, param: string): Surface => ({
  name: `GET ${pathOf(0).replace("/0", "/:id")}`,
  run: async (actor, aud) => {
    const a = await call(file, { [param]: String(momentOf(aud)) }, actor, { path: pathOf(momentOf(aud)) });
    return { got: a.status === 200, detail: String(a.status) };
  },
});

/** Lists: is the moment among those answered? (`got` false when the list itself is refused.) */
async function listed(file: string, actor: Actor, aud: Aud, pathOf: string, pick: (data: unknown) => number[]) {
  const a = await call(file, { kidId: String(cw.kidId) }, actor, { path: pathOf });
  if (a.status !== 200) return { got: false, detail: String(a.status) };
  return { got: pick(await a.response!.json()).includes(momentOf(aud)), detail: "listed?" };
}

/** A page that lists moments: does its loader's data show the moment? (`got` false when the page refuses.) */
function pageLists<D>(
  name: string,
  file: string,
  at: () => { path: string; params?: Record<string, string> },
  shows: (data: D, aud: Aud) => boolean,
): Surface {
  return {
    name,
    run: async (actor, aud) => {
      const { path: pathOf, params = {} } = at();
      const a = await call(file, params, actor, { path: pathOf });
      if (a.status !== 200) return { got: false, detail: statusOf(a) };
      return { got: shows(a.data as D, aud), detail: "listed?" };
    },
  };
}
const kidPage = (suffix: string) => () => ({ path: `/kids/${cw.kidId}${suffix}`, params: { kidId: String(cw.kidId) } });
type StoryList = { moments: { id: number; title: string }[] };
const showsTitle = (d: StoryList, aud: Aud) => d.moments.some((m) => m.title === titleOf(aud));

/**
 * A call that changes rows. `cell` makes what it changes (fresh rows when an allowed actor uses them
 * up), says how to read those rows and how to put things back. An allowed actor gets a success and
 * the rows change; every other actor gets a refusal (401, 403, 404 or the log-in page) and the rows
 * stay exactly as they were. Anything else (a 400, a success that changed nothing) fails the cell.
 */
type WriteCell = CallInit & {
  file: string;
  params: Record<string, string>;
  rows: () => Promise<unknown>;
  cleanUp?: () => Promise<unknown>;
};
function write(name: string, want: Surface["want"], cell: (actor: Actor, aud: Aud) => Promise<WriteCell>): Surface {
  return {
    name,
    want,
    writes: true,
    run: async (actor, aud) => {
      const c = await cell(actor, aud);
      try {
        const before = await c.rows();
        const a = await call(c.file, c.params, actor, c);
        const changed = !isDeepStrictEqual(before, await c.rows());
        const detail = `${statusOf(a)}, rows ${changed ? "changed" : "unchanged"}`;
        const toLogin = (a.location ?? "").startsWith("/login");
        const done = a.status < 300 || (a.status === 303 && !toLogin);
        const refused = [401, 403, 404].includes(a.status) || toLogin;
        if (done && changed) return { got: true, detail };
        if (refused && !changed) return { got: false, detail };
        throw new Error(`${name} as ${actor}, audience ${aud}: neither done nor cleanly refused (${detail})`);
      } finally {
        await c.cleanUp?.();
      }
    },
  };
}
const momentRow = (id: number) => db()("daily_logs").where({ id }).first();
const likesOn = (id: number) => db()("likes").where({ daily_log_id: id }).orderBy("id").select("id", "user_id");
const commentsOn = (id: number) =>
  db()("comments").where({ daily_log_id: id }).orderBy("id").select("id", "user_id", "comment");
/** A cell that writes a comment of `text`: the moment's comments are its rows; the comment goes after. */
const commentBy = (id: number, text: string) => ({
  rows: () => commentsOn(id),
  cleanUp: () => db()("comments").where({ daily_log_id: id, comment: text }).delete(),
});
/**
 * The actor's own like of the moment, to take away or add before a cell; `restore` puts back what
 * was there (the set-up's likes stay for the other surfaces). Nobody signed in has none.
 */
async function ownLike(actor: Actor, momentId: number) {
  const user = actor === "signedOut" ? null : cw.users[actor];
  const theirs = () => db()("likes").where({ daily_log_id: momentId, user_id: user!.id });
  const had = user ? Boolean(await theirs().first("id")) : false;
  return {
    remove: async () => void (user && (await theirs().delete())),
    add: async () => void (user && !had && (await insertLike(momentId, user))),
    restore: async () => {
      if (!user) return;
      await theirs().delete();
      if (had) await insertLike(momentId, user);
    },
  };
}
/** Like or unlike on /api, the actor's own like taken away (like) or written (unlike) first. */
const likeWrite = (name: string, file: string, verb: "like" | "unlike", method: string) =>
  write(name, undefined, async (actor, aud) => {
    const id = momentOf(aud);
    const mine = await ownLike(actor, id);
    await (verb === "like" ? mine.remove() : mine.add());
    return {
      file,
      params: { momentId: String(id) },
      path: `/api/likes/${id}/${verb}`,
      method,
      rows: () => likesOn(id),
      cleanUp: mine.restore,
    };
  });
/** Comments are changed by their author only, and only while the author may see the moment. */
const familyAuthor = (actor: Actor, aud: Aud) => actor === "family" && seesMoment(actor, aud);
/** A fresh comment of the Family friend's on the moment (its cell's own: deleted after). */
async function familyComment(aud: Aud) {
  const id = await insertComment(momentOf(aud), cw.users.family, "From grandma");
  return {
    id,
    rows: () => db()("comments").where({ id }).first(),
    cleanUp: () => db()("comments").where({ id }).delete(),
  };
}

const SURFACES: Surface[] = [
  page("routes/moment.tsx", (id) => `/dailyLogs/${id}`, "momentId"),
  {
    // the photo viewer's page of the moment's third photo
    name: "page /dailyLogs/:id/photos/3",
    run: async (actor, aud) => {
      const a = await call("routes/moment-photo.tsx", { momentId: String(momentOf(aud)), n: "3" }, actor, {
        path: `/dailyLogs/${momentOf(aud)}/photos/3`,
      });
      return { got: a.status === 200, detail: statusOf(a) };
    },
  },
  {
    ...page("routes/moment-update.tsx", (id) => `/dailyLogs/${id}/update`, "momentId"),
    want: (actor) => isParent(actor),
  },
  pageLists(
    "page /kids/:kidId/dailyLogs lists it",
    "routes/kid-moments.tsx",
    kidPage("/dailyLogs"),
    (d: StoryList, aud) => d.moments.some((m) => m.id === momentOf(aud)),
  ),
  // the kid's story pages: every moment of the grid is a milestone of this month
  pageLists(
    "page /kids/:kidId/milestones shows its title",
    "routes/kid-milestones.tsx",
    kidPage("/milestones"),
    showsTitle,
  ),
  pageLists(
    "page /kids/:kidId/timeline?month= shows its title",
    "routes/kid-timeline.tsx",
    () => kidPage(`/timeline?month=${cw.month}`)(),
    showsTitle,
  ),
  api("routes/api/daily-logs-id.ts", (id) => `/api/daily_logs/${id}`, "id"),
  {
    name: "GET /api/kids/:kidId/daily_logs lists it",
    run: (actor, aud) =>
      listed("routes/api/kids-daily-logs.ts", actor, aud, `/api/kids/${cw.kidId}/daily_logs`, (d) =>
        (d as { daily_logs: { id: number }[] }).daily_logs.map((l) => l.id),
      ),
  },
  api("routes/api/likes.ts", (id) => `/api/likes/${id}`, "momentId"),
  api("routes/api/comments.ts", (id) => `/api/comments/${id}/comments`, "momentId"),
  {
    name: "loadSocial (the owner's like shows)",
    run: async (actor, aud) => {
      if (actor === "signedOut") return { got: false, detail: "signed out" };
      const { loadSocial } = await import("~/models/social.server");
      const social = await loadSocial(cw.users[actor], [momentOf(aud)]);
      return { got: social[momentOf(aud)]!.likers.includes(cw.users.owner.username), detail: "likers" };
    },
  },
  pageLists(
    "page /feed lists it",
    "routes/feed.tsx",
    () => ({ path: "/feed" }),
    (d: { entries: { id: number }[] }, aud) => d.entries.some((m) => m.id === momentOf(aud)),
  ),
  {
    // a digest never lists the reader's own kids' moments (docs/spec.md "Email digests")
    name: "email digest content lists it",
    want: (actor, aud) => actor !== "owner" && seesMoment(actor, aud),
    run: async (actor, aud) => {
      if (actor === "signedOut") return { got: false, detail: "no account" };
      const { digestContent } = await import("~/mail/digest.server");
      const until = new Date(Date.now() + 60_000).toISOString();
      const content = await digestContent(cw.users[actor].id, "1970-01-01T00:00:00.000Z", until);
      return { got: content.moments.some((m) => m.id === momentOf(aud)), detail: "in the digest?" };
    },
  },
  {
    // who a new moment is told of it (a notification, a right-away mail): its audience, the poster
    // (here the owner) aside (docs/decisions/0062-new-moments-and-notification-choices.md)
    name: "a new moment's audience has them",
    want: (actor, aud) => actor !== "owner" && seesMoment(actor, aud),
    run: async (actor, aud) => {
      if (actor === "signedOut") return { got: false, detail: "no account" };
      const { momentAudience } = await import("~/models/access.server");
      const audience = await momentAudience(momentOf(aud), cw.users.owner.id);
      return { got: audience.includes(cw.users[actor].id), detail: "in the audience?" };
    },
  },
  // each actor has a notification about each moment (set up below): it is listed only while the
  // reader may see the moment (docs/spec.md "Notifications")
  pageLists(
    "page /notifications lists it",
    "routes/notifications.tsx",
    () => ({ path: "/notifications" }),
    (d: { notifications: { moment: { id: number } | null }[] }, aud) =>
      d.notifications.some((n) => n.moment?.id === momentOf(aud)),
  ),
  {
    name: "GET /api/notifications lists it",
    run: async (actor, aud) => {
      const a = await call("routes/api/notifications.ts", {}, actor, { path: "/api/notifications" });
      if (a.status !== 200) return { got: false, detail: String(a.status) };
      const body = (await a.response!.json()) as { notifications: { daily_log: { id: number } | null }[] };
      return { got: body.notifications.some((n) => n.daily_log?.id === momentOf(aud)), detail: "listed?" };
    },
  },

  // ---- writes: refused → a refusal and no row changes; allowed → done (docs/spec.md §6) ----
  // like and comment: whoever may see the moment (the like cell first takes away the actor's own)
  likeWrite("POST /api/likes/:id/like", "routes/api/likes-like.ts", "like", "POST"),
  write("POST /api/comments/:id/new-comment", undefined, async (actor, aud) => {
    const id = momentOf(aud);
    const text = `From the API, ${actor}`;
    return {
      file: "routes/api/comments-new.ts",
      params: { momentId: String(id) },
      path: `/api/comments/${id}/new-comment`,
      method: "POST",
      json: { comment: text },
      ...commentBy(id, text),
    };
  }),
  // the likes-and-comments block's form post (a comment), as a page sends it without JavaScript
  write("POST /dailyLogs/:id/social (a comment)", undefined, async (actor, aud) => {
    const id = momentOf(aud);
    const text = `From the form, ${actor}`;
    return {
      file: "routes/moment-social.tsx",
      params: { momentId: String(id) },
      path: `/dailyLogs/${id}/social`,
      method: "POST",
      form: { intent: "comment", comment: text },
      ...commentBy(id, text),
    };
  }),
  // moments are changed by the kid's owner and co-parents only
  write("PUT /api/daily_logs/:id", isParent, async (actor, aud) => ({
    file: "routes/api/daily-logs-id.ts",
    params: { id: String(momentOf(aud)) },
    path: `/api/daily_logs/${momentOf(aud)}`,
    method: "PUT",
    json: { title: titleOf(aud), content: `Edited by ${actor}` },
    rows: () => momentRow(momentOf(aud)),
  })),
  write("DELETE /api/daily_logs/:id (a moment of the audience)", isParent, async (_actor, aud) => {
    const id = await insertMoment(cw.kidId, "To delete");
    await db()("daily_logs").where({ id }).update({ audience: aud });
    return {
      file: "routes/api/daily-logs-id.ts",
      params: { id: String(id) },
      path: `/api/daily_logs/${id}`,
      method: "DELETE",
      rows: () => momentRow(id),
      cleanUp: () => db()("daily_logs").where({ id }).delete(),
    };
  }),
  // the actor's own like (written first when they have none): only while they may see the moment
  likeWrite("DELETE /api/likes/:id/unlike (their own like)", "routes/api/likes-unlike.ts", "unlike", "DELETE"),
  write("PUT /api/comments/:commentId/update (the Family friend's comment)", familyAuthor, async (actor, aud) => {
    const comment = await familyComment(aud);
    return {
      ...comment,
      file: "routes/api/comments-update.ts",
      params: { commentId: String(comment.id) },
      path: `/api/comments/${comment.id}/update`,
      method: "PUT",
      json: { comment: `Edited by ${actor}` },
    };
  }),
  write("DELETE /api/comments/:commentId (the Family friend's comment)", familyAuthor, async (_actor, aud) => {
    const comment = await familyComment(aud);
    return {
      ...comment,
      file: "routes/api/comments-id.ts",
      params: { commentId: String(comment.id) },
      path: `/api/comments/${comment.id}`,
      method: "DELETE",
    };
  }),
];

/**
 * Every derivative width of every photo of the moment (three photos) is one more surface. The grid's
 * photos are 1600×1200, so each has every width the image module makes (checked in the set-up): an
 * allowed actor gets that file (WebP of that width), anyone else the photos' refusal, 404.
 */
for (const width of DERIVATIVE_WIDTHS) {
  SURFACES.push({
    name: `image ${width}.webp`,
    run: async (actor, aud) => {
      const answers: string[] = [];
      for (const { key, widths } of cw.moments[aud].photos) {
        if (!widths.includes(width)) throw new Error(`the test photo has no ${width} derivative (${widths})`);
        const a = await call("routes/images.ts", { key, file: `${width}.webp` }, actor, {
          path: `/images/${key}/${width}.webp`,
        });
        if (a.status !== 200) answers.push(String(a.status));
        else {
          const { format, width: got } = await sharp(Buffer.from(await a.response!.arrayBuffer())).metadata();
          answers.push(`${format} ${got}`);
        }
      }
      // all of the moment's photos answer alike: all the image, or all refused
      if (answers.every((x) => x === `webp ${width}`)) return { got: true, detail: answers.join(",") };
      if (answers.every((x) => x === "404")) return { got: false, detail: answers.join(",") };
      throw new Error(`image ${width}.webp as ${actor}, audience ${aud}: ${answers}`);
    },
  });
}

/** Every photo's full-size copy (docs/decisions/0063-full-size-originals.md): one more surface, the same rule. */
SURFACES.push({
  name: "image original.jpg",
  run: async (actor, aud) => {
    const answers: string[] = [];
    for (const { key } of cw.moments[aud].photos) {
      const a = await call("routes/images.ts", { key, file: "original.jpg" }, actor, {
        path: `/images/${key}/original.jpg`,
      });
      if (a.status !== 200) answers.push(String(a.status));
      else {
        const { format, width } = await sharp(Buffer.from(await a.response!.arrayBuffer())).metadata();
        answers.push(`${format} ${width} ${a.response!.headers.get("Content-Disposition")?.split(";")[0]}`);
      }
    }
    if (answers.every((x) => x === `jpeg ${LARGE.width} attachment`)) return { got: true, detail: answers.join(",") };
    if (answers.every((x) => x === "404")) return { got: false, detail: answers.join(",") };
    throw new Error(`image original.jpg as ${actor}, audience ${aud}: ${answers}`);
  },
});

/**
 * A clip's files (docs/decisions/0064-video-clips.md): its small rendition's first bytes (what a
 * video element asks first), its captions and its poster, each only to whoever may see its moment.
 */
for (const [name, file] of [
  ["clip small.mp4", "small.mp4"],
  ["clip large.mp4", "large.mp4"],
  ["clip captions.vtt", "captions.vtt"],
] as const) {
  SURFACES.push({
    name,
    run: async (actor, aud) => {
      const { key } = cw.moments[aud].clip;
      const a = await call("routes/videos.ts", { key, file }, actor, { path: `/videos/${key}/${file}` });
      if (a.status === 404) return { got: false, detail: "404" };
      if (a.status !== 200) throw new Error(`${name} as ${actor}, audience ${aud}: ${a.status}`);
      return { got: true, detail: `${a.status} ${a.response!.headers.get("Content-Type")}` };
    },
  });
}
SURFACES.push({
  name: "clip poster",
  run: async (actor, aud) => {
    const { poster } = cw.moments[aud].clip;
    const file = `${poster.widths[0]}.webp`;
    const a = await call("routes/images.ts", { key: poster.key, file }, actor, {
      path: `/images/${poster.key}/${file}`,
    });
    if (a.status === 404) return { got: false, detail: "404" };
    if (a.status !== 200) throw new Error(`clip poster as ${actor}, audience ${aud}: ${a.status}`);
    return { got: true, detail: "200" };
  },
});

describe("who sees what: actors × audiences × surfaces", () => {
  beforeAll(async () => {
    const { blockUser } = await import("~/models/blocks.server");
    const { likeMoment } = await import("~/models/likes.server");
    const { addComment } = await import("~/models/comments.server");
    const users = {
      owner: await makeUser(),
      coParent: await makeUser(),
      family: await makeUser(),
      friendsCircle: await makeUser(),
      pending: await makeUser(),
      blocked: await makeUser(),
      stranger: await makeUser(),
    };
    const kidPhoto = await storePhoto("kid", users.owner.id, "#3a7");
    const kidId = await insertKid(users.owner, "Circled", kidPhoto.imageId);
    await insertFriendship(users.owner, users.coParent, "accepted");
    await insertCoParent(kidId, users.coParent, "accepted");
    await fileFriend(
      await insertFriendship(users.family, users.owner, "accepted"),
      users.owner,
      "family",
      "grandparent",
    );
    await insertFriendship(users.owner, users.friendsCircle, "accepted");
    await insertFriendship(users.pending, users.owner, "pending");
    await fileFriend(await insertFriendship(users.owner, users.blocked, "accepted"), users.owner, "family", "cousin");
    await insertCoParent(kidId, users.blocked, "accepted");
    const moments = {} as Circles["moments"];
    for (const audience of AUDIENCE_LIST) {
      // large enough for every derivative width (the image surfaces fetch each one)
      const photo = await storePhoto("moment", users.owner.id, "#37a", LARGE);
      const id = await insertMoment(kidId, titleOf(audience), photo.imageId);
      // a milestone: the kid's milestones page lists it
      await db()("daily_logs").where({ id }).update({ audience, milestone: "First steps" });
      const more = [
        await addMomentPhotos(id, users.owner.id, 1, 1, LARGE),
        await addMomentPhotos(id, users.owner.id, 1, 2, LARGE),
      ];
      const first = { key: photo.key, widths: photo.widths };
      moments[audience] = {
        id,
        photo: first,
        photos: [first, ...more.map((m) => ({ key: m.key, widths: m.widths }))],
        clip: await insertReadyClip(id, users.owner.id),
      };
      for (const p of moments[audience].photos) expect(p.widths).toEqual([...DERIVATIVE_WIDTHS]);
      expect((await likeMoment(users.owner.id, id)).ok).toBe(true);
    }
    const { taken_on: takenOn } = await db()("daily_logs").where({ id: moments.us.id }).first("taken_on");
    // a notification for every actor about every moment, as if written when they still could see it:
    // the owner's a like, the others' a reply in a thread they commented on
    const { notify } = await import("~/models/notifications.server");
    for (const [name, user] of Object.entries(users)) {
      const liker = name === "owner" ? users.coParent : users.owner;
      await notify(
        db(),
        AUDIENCE_LIST.map((audience) => ({
          userId: user.id,
          kind: name === "owner" ? "like" : "reply",
          actorId: liker.id,
          momentId: moments[audience].id,
        })),
      );
    }
    const comment = await addComment(users.blocked.id, moments.everyone.id, "Before the block");
    if (!comment.ok) throw new Error("setup");
    expect((await blockUser(users.owner.id, users.blocked.id)).ok).toBe(true);
    const cookies = { signedOut: undefined } as Circles["cookies"];
    for (const [name, user] of Object.entries(users)) cookies[name as Actor] = await cookieFor(user);
    cw = { users, cookies, kidId, moments, month: String(takenOn).slice(0, 7), blockedCommentId: comment.comment.id };
  });

  // the figure of docs/decisions/0031-audiences-circles-co-parents-blocks.md: 24 surfaces + 4 photo widths,
  // + the full-size copy (docs/decisions/0063-full-size-originals.md) + a clip's rendition, captions
  // and poster (docs/decisions/0064-video-clips.md)
  const cells = ACTORS.length * AUDIENCE_LIST.length * SURFACES.length;
  it(`has ${ACTORS.length} actors × ${AUDIENCE_LIST.length} audiences × ${SURFACES.length} surfaces = ${cells} cells`, () => {
    console.info(
      `who sees what: ${ACTORS.length} actors × ${AUDIENCE_LIST.length} audiences × ${SURFACES.length} surfaces = ${cells} cells`,
    );
    expect([ACTORS.length, AUDIENCE_LIST.length, SURFACES.length, cells]).toEqual([
      8,
      3,
      24 + DERIVATIVE_WIDTHS.length + 1 + 4,
      792,
    ]);
  });

  for (const surface of SURFACES) {
    for (const actor of ACTORS) {
      it(`${surface.name} as ${actor}: each audience`, async () => {
        for (const audience of AUDIENCE_LIST) {
          const want = surface.want ? surface.want(actor, audience) : seesMoment(actor, audience);
          const { got, detail } = await surface.run(actor, audience);
          expect(got, `${surface.name}, ${actor}, audience ${audience}: got ${detail}`).toBe(want);
        }
      });
    }
  }

  it("the API's Kid, with its co_parents, only to those who see the kid", async () => {
    for (const actor of ACTORS) {
      const a = await call("routes/api/kids-id.ts", { id: String(cw.kidId) }, actor, { path: `/api/kids/${cw.kidId}` });
      expect(a.status, actor).toBe(actor === "signedOut" ? 401 : seesKid(actor) ? 200 : 403);
      if (a.status === 200) {
        const kid = await a.response!.json();
        expect(kid.user_id).toBe(cw.users.owner.id);
        expect(kid.co_parents).toEqual([{ id: cw.users.coParent.id, username: cw.users.coParent.username }]);
      }
    }
  });

  it("the DailyLog's audience is shown to the owner and co-parents only; posted_by to all who see it", async () => {
    for (const actor of ["owner", "coParent", "family", "friendsCircle"] as const) {
      const a = await call("routes/api/daily-logs-id.ts", { id: String(momentOf("everyone")) }, actor, {
        path: `/api/daily_logs/${momentOf("everyone")}`,
      });
      const body = await a.response!.json();
      expect(body.posted_by).toBe(cw.users.owner.id);
      expect("audience" in body, actor).toBe(isParent(actor));
    }
  });

  it("the co-parent's kids list has the kid; the blocked user's has not (their role ended)", async () => {
    const { listKidsOf } = await import("~/models/kids.server");
    expect((await listKidsOf(cw.users.coParent.id)).map((k) => k.id)).toContain(cw.kidId);
    expect((await listKidsOf(cw.users.blocked.id)).map((k) => k.id)).not.toContain(cw.kidId);
  });

  it("a blocked user's past comment is hidden on the blocker's moment until the blocker chooses to show it", async () => {
    const { listComments } = await import("~/models/comments.server");
    const { showBlockedComments } = await import("~/models/blocks.server");
    const ids = async () => {
      const r = await listComments(cw.users.family.id, momentOf("everyone"));
      return r.ok ? r.comments.map((c) => c.id) : [];
    };
    expect(await ids()).not.toContain(cw.blockedCommentId);
    expect((await showBlockedComments(cw.users.owner.id, cw.users.blocked.id, true)).ok).toBe(true);
    expect(await ids()).toContain(cw.blockedCommentId);
    expect((await showBlockedComments(cw.users.owner.id, cw.users.blocked.id, false)).ok).toBe(true);
    expect(await ids()).not.toContain(cw.blockedCommentId);
  });

  it("the blocked user cannot find the blocker, nor send them a request; they are not told why", async () => {
    const { searchUsers } = await import("~/models/user-search.server");
    const { sendFriendRequest } = await import("~/models/friendships.server");
    const { isBlockedBetween } = await import("~/models/access.server");
    const owner = await db()("users").where("id", cw.users.owner.id).first("last_name");
    const found = async (viewer: number) =>
      ((await searchUsers(String(owner.last_name), viewer)) ?? []).map((h) => h.id);
    expect(await found(cw.users.stranger.id)).toContain(cw.users.owner.id);
    expect(await found(cw.users.blocked.id)).not.toContain(cw.users.owner.id);
    expect(await sendFriendRequest(cw.users.blocked.id, cw.users.owner.id)).toEqual({
      ok: false,
      kind: "not-found",
      message: "Friend not found",
    });
    expect((await sendFriendRequest(cw.users.owner.id, cw.users.blocked.id)).ok).toBe(false);
    expect(await isBlockedBetween(cw.users.blocked.id, cw.users.owner.id)).toEqual({
      blocked: true,
      blockedBy: cw.users.owner.id,
    });
    expect((await isBlockedBetween(cw.users.stranger.id, cw.users.owner.id)).blocked).toBe(false);
  });

  it("an audience change is effective on the next request on every surface that reads: pages, lists, feed, API, digest, photos, notifications", async () => {
    const { updateMoment } = await import("~/models/moment-changes.server");
    const reads = SURFACES.filter((s) => !s.writes);
    const id = momentOf("everyone");
    // the grid's Everyone moment as the Family friend and the Friends-circle friend find it now,
    // with no cache between the change and the request
    const isNow = async (audience: Aud) => {
      for (const actor of ["family", "friendsCircle"] as const) {
        for (const surface of reads) {
          const want = surface.want ? surface.want(actor, audience) : seesMoment(actor, audience);
          const { got, detail } = await surface.run(actor, "everyone");
          expect(got, `audience now ${audience}: ${surface.name}, ${actor}: got ${detail}`).toBe(want);
        }
      }
    };
    const change = async (by: { id: number }, audience: Aud) => {
      const changed = await updateMoment(
        by.id,
        id,
        { title: titleOf("everyone"), content: `Now for ${audience}`, audience },
        null,
      );
      expect(changed.ok).toBe(true);
      await isNow(audience);
    };
    expect(reads.map((s) => s.name)).toEqual(
      expect.arrayContaining([
        "page /kids/:kidId/dailyLogs lists it",
        "page /feed lists it",
        "GET /api/kids/:kidId/daily_logs lists it",
        "email digest content lists it",
      ]),
    );
    await isNow("everyone");
    await change(cw.users.owner, "us");
    // a co-parent changes it to Family, then back to Everyone
    await change(cw.users.coParent, "family");
    await change(cw.users.coParent, "everyone");
  });
});

/** Gives a moment `n` more photos (moment_photos rows from `position`); answers the last one. */
async function addMomentPhotos(
  momentId: number,
  ownerId: number,
  n: number,
  position = 1,
  size?: { width: number; height: number },
) {
  let last: Awaited<ReturnType<typeof storePhoto>> | null = null;
  // the fixtures' insertMoment writes daily_logs.image_id only: its moment_photos row, as the app writes it
  const moment = await db()("daily_logs").where("id", momentId).first("image_id", "title");
  if (moment.image_id && !(await db()("moment_photos").where({ daily_log_id: momentId, position: 0 }).first("id"))) {
    await db()("moment_photos").insert({
      daily_log_id: momentId,
      image_id: moment.image_id,
      position: 0,
      alt: moment.title,
    });
  }
  for (let i = 0; i < n; i++) {
    last = await storePhoto("moment", ownerId, "#7a3", size);
    await db()("moment_photos").insert({
      daily_log_id: momentId,
      image_id: last.imageId,
      position: position + i,
      alt: `Photo ${position + i + 1}`,
    });
  }
  await db()("daily_logs")
    .where("id", momentId)
    .update({ photo_count: position + n });
  return last!;
}

// ---- access that follows a change of relationship (docs/decisions/0041) -------------------------
// The grid's surfaces again (every read and write of "who sees what", each photo width), asked in
// a world of their own: `cw` is swapped for it while a test runs.

type GridUser = { id: number; username: string };

/** A user with a username, written directly (no password hashing). */
async function gridUser(): Promise<GridUser> {
  const { id } = await quickUser();
  return { id, username: String((await db()("users").where({ id }).first("username")).username) };
}

/**
 * A kid of `owner` with a photo, the grid's three moments (one per audience, three large photos
 * each, liked by the owner) and a notification about each moment for each of `readers`.
 */
async function gridKid(owner: GridUser, readers: GridUser[]): Promise<Pick<Circles, "kidId" | "moments" | "month">> {
  const kidPhoto = await storePhoto("kid", owner.id, "#a73");
  const kidId = await insertKid(owner, "Handed", kidPhoto.imageId);
  const moments = {} as Circles["moments"];
  for (const audience of AUDIENCE_LIST) {
    const photo = await storePhoto("moment", owner.id, "#73a", LARGE);
    const id = await insertMoment(kidId, titleOf(audience), photo.imageId);
    await db()("daily_logs").where({ id }).update({ audience, milestone: "First word" });
    const more = [await addMomentPhotos(id, owner.id, 1, 1, LARGE), await addMomentPhotos(id, owner.id, 1, 2, LARGE)];
    const first = { key: photo.key, widths: photo.widths };
    moments[audience] = {
      id,
      photo: first,
      photos: [first, ...more.map((m) => ({ key: m.key, widths: m.widths }))],
      clip: await insertReadyClip(id, owner.id),
    };
    await insertLike(id, owner);
  }
  const { notify } = await import("~/models/notifications.server");
  for (const reader of readers) {
    await notify(
      db(),
      AUDIENCE_LIST.map((audience) => ({
        userId: reader.id,
        kind: "reply" as const,
        actorId: owner.id,
        momentId: moments[audience].id,
      })),
    );
  }
  const { taken_on: takenOn } = await db()("daily_logs").where({ id: moments.us.id }).first("taken_on");
  return { kidId, moments, month: String(takenOn).slice(0, 7) };
}

/** Runs `fn` with `world` as the grid's world, then puts the grid's own back. */
async function inWorld(world: Circles, fn: () => Promise<void>): Promise<void> {
  const before = cw;
  cw = world;
  try {
    await fn();
  } finally {
    cw = before;
  }
}

/** `actor` gets nothing of the moment of any audience on any surface of the grid. */
async function seesNothing(actor: Actor, why: string): Promise<void> {
  for (const surface of SURFACES) {
    for (const audience of AUDIENCE_LIST) {
      const { got, detail } = await surface.run(actor, audience);
      expect(got, `${why}: ${surface.name}, audience ${audience}: got ${detail}`).toBe(false);
    }
  }
}

describe("the unfriended co-parent", () => {
  let world: Circles;
  let invitee: GridUser;
  let invitationId: number;

  beforeAll(async () => {
    const [owner, coParent, family, friendsCircle, pending, blocked, stranger] = [
      await gridUser(),
      await gridUser(),
      await gridUser(),
      await gridUser(),
      await gridUser(),
      await gridUser(),
      await gridUser(),
    ];
    invitee = await gridUser();
    const users = { owner, coParent, family, friendsCircle, pending, blocked, stranger };
    const grid = await gridKid(owner, [coParent]);
    await insertFriendship(owner, coParent, "accepted");
    await insertCoParent(grid.kidId, coParent, "accepted");
    await insertFriendship(invitee, owner, "accepted");
    invitationId = await insertCoParent(grid.kidId, invitee, "pending");
    const cookies = { signedOut: undefined } as Circles["cookies"];
    for (const [name, user] of Object.entries(users)) cookies[name as Actor] = await cookieFor(user);
    world = { users, cookies, ...grid, blockedCommentId: 0 };
  });

  it("while the friendship holds, the co-parent sees every moment; after Remove Friend (the Friends page, confirmed) nothing, on every surface", async () => {
    await inWorld(world, async () => {
      const surface = SURFACES.find((s) => s.name === "page /kids/:kidId/dailyLogs lists it")!;
      for (const audience of AUDIENCE_LIST) expect((await surface.run("coParent", audience)).got, audience).toBe(true);
      const friendship = await db()("friendships")
        .where(pairOf(world.users.owner.id, world.users.coParent.id))
        .first("id");
      const removed = await call("routes/friends.tsx", {}, "owner", {
        path: "/current/friends",
        method: "POST",
        form: { intent: "remove", friendshipId: String(friendship.id), confirmed: "yes" },
      });
      expect(statusOf(removed)).toBe("303 → /current/friends");
      await seesNothing("coParent", "the unfriended co-parent");
    });
  });

  it("cannot post a moment, change the kid, or find it among their kids", async () => {
    await inWorld(world, async () => {
      const before = await db()("daily_logs").where({ kid_id: world.kidId }).count({ n: "*" }).first();
      const posted = await call("routes/api/kids-daily-logs-new.ts", { kidId: String(world.kidId) }, "coParent", {
        path: `/api/kids/${world.kidId}/daily_logs/new`,
        method: "POST",
        json: { title: "Still here?", content: "Trying" },
      });
      expect(posted.status).toBe(403);
      expect(await db()("daily_logs").where({ kid_id: world.kidId }).count({ n: "*" }).first()).toEqual(before);
      const kid = await call("routes/api/kids-id.ts", { id: String(world.kidId) }, "coParent", {
        path: `/api/kids/${world.kidId}`,
      });
      expect(kid.status).toBe(403);
      const image = await db()("kids").where({ id: world.kidId }).first("image_id");
      const { canViewImage } = await import("~/models/access.server");
      expect(
        await canViewImage(world.users.coParent.id, {
          id: Number(image.image_id),
          kind: "kid",
          owner_id: world.users.owner.id,
        }),
      ).toBe(false);
      const { listKidsOf } = await import("~/models/kids.server");
      expect((await listKidsOf(world.users.coParent.id)).map((k) => k.id)).not.toContain(world.kidId);
    });
  });

  it("a pending co-parent invitation cannot be accepted once the friendship has ended (DELETE /api/friendships/{id})", async () => {
    const cookie = await cookieFor(invitee);
    const ownerCookie = world.cookies.owner;
    const friendship = await db()("friendships").where(pairOf(world.users.owner.id, invitee.id)).first("id");
    const mod = await import("~/routes/api/friendships-id");
    const ended = (await mod.action(
      args(req(`/api/friendships/${friendship.id}`, { method: "DELETE", cookie: ownerCookie }), {
        id: String(friendship.id),
      }),
    )) as Response;
    expect(ended.status).toBe(200);
    const answer = await import("~/routes/api/co-parent-invitations-id");
    const accepted = (await answer.action(
      args(req(`/api/co_parent_invitations/${invitationId}`, { method: "PUT", cookie, json: { status: "accepted" } }), {
        id: String(invitationId),
      }),
    )) as Response;
    expect(accepted.status).toBe(404);
    expect(await db()("co_parents").where({ kid_id: world.kidId, user_id: invitee.id }).first()).toBeUndefined();
  });
});

describe("the handed-over kid", () => {
  let world: Circles;
  let shownCommentId: number;

  beforeAll(async () => {
    const { blockUser } = await import("~/models/blocks.server");
    const { deleteAccount } = await import("~/models/account.server");
    // O owns the kid, C co-parents it; S is C's friend (Family circle) and a stranger to O; B was
    // friends with both and commented on every moment, then O blocked B; F is O's friend, and C's
    const owner = await makeUser();
    const [coParent, stranger, blockedUser, friend, pending, other] = [
      await gridUser(),
      await gridUser(),
      await gridUser(),
      await gridUser(),
      await gridUser(),
      await gridUser(),
    ];
    const grid = await gridKid(owner, [stranger, blockedUser, friend]);
    await insertFriendship(owner, coParent, "accepted");
    await insertCoParent(grid.kidId, coParent, "accepted");
    for (const u of [blockedUser, friend]) {
      await insertFriendship(owner, u, "accepted");
      await fileFriend(await insertFriendship(coParent, u, "accepted"), coParent, "family");
    }
    await fileFriend(await insertFriendship(coParent, stranger, "accepted"), coParent, "family");
    await insertFriendship(pending, coParent, "pending");
    let blockedCommentId = 0;
    for (const audience of AUDIENCE_LIST)
      blockedCommentId = await insertComment(grid.moments[audience].id, blockedUser, "Before the block");
    shownCommentId = await insertComment(grid.moments.everyone.id, friend, "Lovely");
    expect((await blockUser(owner.id, blockedUser.id)).ok).toBe(true);
    expect(await deleteAccount(owner.id, { password: "secret1" })).toEqual({ ok: true });
    // the grid's actors, seen from the new owner: C owns the kid, S is in their Family circle, F in it too
    const users = {
      owner: coParent,
      coParent: other,
      family: stranger,
      friendsCircle: friend,
      pending,
      blocked: blockedUser,
      stranger: other,
    };
    const cookies = { signedOut: undefined } as Circles["cookies"];
    for (const [name, user] of Object.entries(users)) cookies[name as Actor] = await cookieFor(user);
    world = { users, cookies, ...grid, blockedCommentId };
  });

  it("the co-parent owns the kid and sees every moment", async () => {
    await inWorld(world, async () => {
      const surface = SURFACES.find((s) => s.name === "page /kids/:kidId/dailyLogs lists it")!;
      for (const audience of AUDIENCE_LIST) expect((await surface.run("owner", audience)).got, audience).toBe(true);
      expect(await db()("kids").where({ id: world.kidId }).first("user_id")).toEqual({ user_id: world.users.owner.id });
    });
  });

  it("a friend of the co-parent who was a stranger to the old owner sees nothing of the old moments, photos or comments", async () => {
    await inWorld(world, async () => {
      await seesNothing("family", "the new owner's Family friend, a stranger to the old owner");
      await seesNothing("friendsCircle", "a friend of both");
      await seesNothing("blocked", "the user the old owner blocked");
    });
  });

  it("the kid itself (its page, the API's Kid, its photo) is hidden from the new owner's friends until the new owner shows it", async () => {
    await inWorld(world, async () => {
      const kidSeenBy = async (actor: Actor) => {
        const a = await call("routes/api/kids-id.ts", { id: String(world.kidId) }, actor, {
          path: `/api/kids/${world.kidId}`,
        });
        const page = await call("routes/kid-moments.tsx", { kidId: String(world.kidId) }, actor, {
          path: `/kids/${world.kidId}/dailyLogs`,
        });
        const image = await db()("kids").where({ id: world.kidId }).first("image_id");
        const { canViewImage } = await import("~/models/access.server");
        const photo = await canViewImage(world.users[actor as Exclude<Actor, "signedOut">].id, {
          id: Number(image.image_id),
          kind: "kid",
          owner_id: world.users.owner.id,
        });
        return `${a.status} ${page.status} ${photo}`;
      };
      for (const actor of ["family", "friendsCircle", "blocked"] as const)
        expect(await kidSeenBy(actor), actor).toBe("403 404 false");
      expect(await kidSeenBy("owner")).toBe("200 200 true");
      const shown = await call("routes/api/kids-show-to-friends.ts", { id: String(world.kidId) }, "owner", {
        path: `/api/kids/${world.kidId}/show_to_friends`,
        method: "POST",
      });
      expect(shown.status).toBe(200);
      for (const actor of ["family", "friendsCircle", "blocked"] as const)
        expect(await kidSeenBy(actor), actor).toBe("200 200 true");
      // shown, the kid's old moments stay "Only us" until the new owner changes each
      await seesNothing("family", "the new owner's Family friend, once the kid is shown");
    });
  });

  it("a blocked commenter's comments stay hidden, also once the new owner shares the moment again", async () => {
    await inWorld(world, async () => {
      await db()("kids").where({ id: world.kidId }).update({ shown_to_friends: true });
      const id = world.moments.everyone.id;
      const commentIdsFor = async (actor: Actor) => {
        const a = await call("routes/api/comments.ts", { momentId: String(id) }, actor, {
          path: `/api/comments/${id}/comments`,
        });
        if (a.status !== 200) return `${a.status}`;
        return ((await a.response!.json()) as { id: number }[]).map((c) => c.id);
      };
      expect(await commentIdsFor("owner")).toEqual([shownCommentId]);
      const shared = await call("routes/api/daily-logs-id.ts", { id: String(id) }, "owner", {
        path: `/api/daily_logs/${id}`,
        method: "PUT",
        json: { title: titleOf("everyone"), content: "Shared again", audience: "everyone" },
      });
      expect(shared.status).toBe(200);
      for (const actor of ["owner", "family", "friendsCircle", "blocked"] as const)
        expect(await commentIdsFor(actor), actor).toEqual([shownCommentId]);
      const { loadSocial } = await import("~/models/social.server");
      const social = await loadSocial(world.users.family, [id]);
      expect(JSON.stringify(social[id])).not.toContain("Before the block");
    });
  });
});
