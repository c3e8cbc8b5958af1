import { data, redirect } from "react-router";
import type { Route } from "./+types/friends";
import "~/styles/friends.css";
import { requireUser } from "~/web/auth.server";
import { parseId } from "~/lib/request.server";
import { answerFriendRequest, deleteFriendship, getFriendship } from "~/models/friendships.server";
import { listFriends, type FriendEntry } from "~/models/friend-lists.server";
import { displayName } from "~/lib/names";
import { refusalStatus } from "~/web/refusal.server";
import {
  invitationAction,
  linkFlashMiddleware,
  readLinkFlash,
  type InvitationActionData,
} from "~/web/invitations.server";
import { listInvitations } from "~/models/invitations.server";
import { listKidsOf } from "~/models/kids.server";
import { FamilyInvitationsSection } from "~/components/invitations";
import {
  AllFriendsSection,
  type Confirm,
  ConfirmEnd,
  confirmUrl,
  type Person,
  RequestsReceivedSection,
  RequestsSentSection,
} from "~/components/friends";
import { BlockedSection, CoParentInvitationsSection } from "~/components/circles";
import { circleSeesTexts } from "~/models/access.server";
import { blockUser, listBlocked, showBlockedComments, unblockUser } from "~/models/blocks.server";
import {
  answerCoParentInvitation,
  coParentInvitationsFor,
  coParentingBetween,
  endsCoParentingText,
} from "~/models/co-parents.server";
import { FORGET_KEPT_PAGES } from "~/web/conditional.server";

// /current/friends (docs/spec.md §2 "Friends"): All Friends (a list of people, each a link to
// their own page, app/routes/friend.tsx, where their kids and their forms are), Friend Requests
// Received (Accept, Deny), You Sent A Friend Request To (Cancel Request; denied ones Delete Request).
// Every button is a plain POST form told apart by `intent`; the action redirects back (PRG), and with
// JavaScript the same navigation revalidates the lists in place. Who sees what (docs/spec.md §6):
// each friend's circle and relationship (changed on their page), Block (a friend's page and
// received requests), Blocked users
// (Unblock, show or hide their past comments) and co-parent invitations received.
// Removing or blocking someone who co-parents a kid with the user (either way, or is invited to)
// ends that co-parenting too, so it asks first (docs/decisions/0041): the button is a link to this
// page with ?confirm=remove&friendshipId= or ?confirm=block&userId=, which shows a confirm dialog
// (a modal with JavaScript, the page's own step without), and a post without `confirmed` that would
// end co-parenting is sent to that step instead of taking effect.

function person(entry: FriendEntry): Person {
  return {
    friendshipId: entry.friendshipId,
    userId: entry.user.id,
    username: entry.user.username,
    name: displayName(entry.user),
    photo: entry.user.photo,
  };
}

// a new invitation or sign-in link is shown once (app/web/invitations.server.ts)
export const middleware: Route.MiddlewareFunction[] = [linkFlashMiddleware];

/** The confirm step the URL asks for, when it names a friend (or a received request) on the lists. */
function confirmFrom(url: URL, people: (Person & { ends: string | null })[]): Confirm | null {
  const intent = url.searchParams.get("confirm");
  if (intent !== "remove" && intent !== "block") return null;
  const id = parseId(url.searchParams.get(intent === "remove" ? "friendshipId" : "userId") ?? undefined);
  const p = people.find((x) => (intent === "remove" ? x.friendshipId : x.userId) === id);
  return p && id !== null ? { intent, who: p.username, id, ends: p.ends } : null;
}

/** The confirm step, when the URL asks for one: what ending that friendship (or request) also ends. */
async function confirmStep(url: URL, userId: number, people: FriendEntry[]): Promise<Confirm | null> {
  if (!url.searchParams.has("confirm")) return null;
  const shared = await coParentingBetween(
    userId,
    people.map((e) => e.user.id),
  );
  return confirmFrom(
    url,
    people.map((e) => ({ ...person(e), ends: endsCoParentingText(e.user.username, shared.get(e.user.id)) })),
  );
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const url = new URL(request.url);
  // the list names each friend; their kids and forms are on their own page (app/routes/friend.tsx)
  const [lists, familyInvitations, newLink, kids] = await Promise.all([
    listFriends(user.id, { kids: false }),
    listInvitations(user.id),
    readLinkFlash(request),
    listKidsOf(user.id),
  ]);
  const receivedEntries = lists.pending.filter((e) => e.direction === "received");
  return {
    familyInvitations,
    // an invitation may make its answer a co-parent of the user's own kids (not those they co-parent)
    ownKids: kids.filter((k) => k.user_id === user.id).map((k) => ({ id: k.id, name: k.name })),
    newLink,
    friends: lists.confirmed.map((e) => ({ ...person(e), label: e.label })),
    received: receivedEntries.map(person),
    confirm: await confirmStep(url, user.id, [...lists.confirmed, ...receivedEntries]),
    sent: [...lists.pending.filter((e) => e.direction === "sent"), ...lists.denied]
      .sort((a, b) => a.friendshipId - b.friendshipId)
      .map((e) => ({ ...person(e), denied: e.status === "denied" })),
    blocked: (await listBlocked(user.id)).map((b) => ({
      id: b.id,
      username: b.username,
      showComments: b.showComments,
    })),
    invitations: await coParentInvitationsFor(user.id),
    circleSees: circleSeesTexts(),
    // the invitation form shows at once to someone with no friends yet, and at "Invite someone"'s
    // address; with friends the page leads with them (docs/decisions/0058-friends-as-a-list.md)
    inviteFormShown: lists.confirmed.length === 0 || url.searchParams.has("invite"),
  };
}

/**
 * Would ending the friendship with `otherId` also end co-parenting, and the form did not say it was
 * confirmed? Then where to ask first (a Remove Friend or Block from a page loaded before the
 * co-parenting began, or the friend search's Block).
 */
async function askFirst(userId: number, otherId: number | null, form: FormData, at: string): Promise<Response | null> {
  if (otherId === null || form.get("confirmed") === "yes") return null;
  return (await coParentingBetween(userId, [otherId])).has(otherId) ? redirect(at, 303) : null;
}

/** The forms of docs/spec.md §6 on this page (they name a user or an invitation, not a friendship). */
async function circlesAction(userId: number, intent: unknown, form: FormData) {
  const other = form.get("userId");
  switch (intent) {
    case "block":
      return blockUser(userId, other);
    case "unblock":
      return unblockUser(userId, other);
    case "show-comments":
    case "hide-comments":
      return showBlockedComments(userId, other, intent === "show-comments");
    case "accept-co-parent":
    case "decline-co-parent": {
      const id = parseId(String(form.get("invitationId") ?? ""));
      if (id === null) return null;
      return answerCoParentInvitation(userId, id, intent === "accept-co-parent" ? "accepted" : "declined");
    }
    default:
      return undefined;
  }
}

const STALE = "That request has changed in the meantime. The lists below are up to date.";

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  const form = await request.formData();
  const invitationAnswer = await invitationAction(user, form);
  if (invitationAnswer) return invitationAnswer;
  const intent = form.get("intent");
  if (intent === "block") {
    const other = parseId(String(form.get("userId") ?? ""));
    const ask = await askFirst(user.id, other, form, confirmUrl("block", other ?? 0));
    if (ask) return ask;
  }
  const circles = await circlesAction(user.id, intent, form);
  if (circles === null) return data({ error: "That request could not be handled." }, { status: 400 });
  if (circles !== undefined) {
    if (!circles.ok) return data({ error: STALE }, { status: refusalStatus(circles) });
    return redirect("/current/friends", { status: 303, headers: intent === "block" ? FORGET_KEPT_PAGES : undefined });
  }
  const id = parseId(typeof form.get("friendshipId") === "string" ? String(form.get("friendshipId")) : undefined);
  if (id === null) return data({ error: "That request could not be handled." }, { status: 400 });

  let result;
  switch (intent) {
    case "accept":
      result = await answerFriendRequest(user.id, id, "accepted");
      break;
    case "deny":
      result = await answerFriendRequest(user.id, id, "denied");
      break;
    case "cancel":
      result = await deleteFriendship(user.id, id, { status: "pending", role: "sender" });
      break;
    case "delete-denied":
      result = await deleteFriendship(user.id, id, { status: "denied", role: "sender" });
      break;
    case "remove": {
      const current = await getFriendship(id);
      const other = current ? (current.user_id === user.id ? current.friend_id : current.user_id) : null;
      const ask =
        current && (current.user_id === user.id || current.friend_id === user.id)
          ? await askFirst(user.id, other, form, confirmUrl("remove", id))
          : null;
      if (ask) return ask;
      result = await deleteFriendship(user.id, id, { status: "accepted" });
      break;
    }
    default:
      return data({ error: "That request could not be handled." }, { status: 400 });
  }
  if (!result.ok) return data({ error: STALE }, { status: refusalStatus(result) });
  return redirect("/current/friends", { status: 303, headers: intent === "remove" ? FORGET_KEPT_PAGES : undefined });
}

export function meta() {
  return [{ title: "Friends – Sweet Moments" }];
}

export default function FriendsPage({ loaderData, actionData }: Route.ComponentProps) {
  const {
    friends,
    received,
    sent,
    blocked,
    invitations,
    familyInvitations,
    newLink,
    confirm,
    ownKids,
    circleSees,
    inviteFormShown,
  } = loaderData;
  const invitationData = actionData as InvitationActionData | undefined;
  return (
    <div className="page friends-page">
      <h1>Friends</h1>
      {actionData?.error ? (
        <p className="notice notice--error" role="alert">
          {actionData.error}
        </p>
      ) : null}

      <FamilyInvitationsSection
        invitations={familyInvitations}
        newLink={newLink}
        lastResult={invitationData?.inviteResult}
        ownKids={ownKids}
        sees={circleSees}
        formShown={inviteFormShown}
      />

      <AllFriendsSection friends={friends} />
      <RequestsReceivedSection received={received} />
      <RequestsSentSection sent={sent} />

      <CoParentInvitationsSection invitations={invitations} />
      <BlockedSection blocked={blocked} />
      {confirm ? <ConfirmEnd confirm={confirm} /> : null}
    </div>
  );
}
