import type { ReactNode } from "react";
import { data, Form, Link, redirect, useLocation, useNavigation, href } from "react-router";
import type { Route } from "./+types/friends";
import "~/styles/friends.css";
import { requireUser } from "~/web/auth.server";
import { parseId } from "~/lib/request.server";
import { Photo } from "~/components/photo";
import { useSubmitOnce } from "~/components/form-basics";
import type { Photo as PhotoData } from "~/images/photo";
import {
  answerFriendRequest,
  deleteFriendship,
  getFriendship,
  listFriends,
  type FriendEntry,
} from "~/models/friendships.server";
import { displayName } from "~/lib/names";
import { refusalStatus } from "~/web/refusal.server";
import {
  invitationAction,
  linkFlashMiddleware,
  readLinkFlash,
  type InvitationActionData,
} from "~/web/invitations.server";
import { listInvitations } from "~/models/invitations.server";
import { FamilyInvitationsSection } from "~/components/invitations";
import { BlockButton, BlockedSection, CoParentInvitationsSection, FriendLabelForm } from "~/components/circles";
import { setFriendLabel } from "~/models/circles.server";
import { blockUser, listBlocked, showBlockedComments, unblockUser } from "~/models/blocks.server";
import {
  answerCoParentInvitation,
  coParentInvitationsFor,
  coParentingBetween,
  endsCoParentingText,
} from "~/models/co-parents.server";
import { ConfirmDialog } from "~/components/modal";
import { EmptyState } from "~/components/empty-state";
import { FORGET_KEPT_PAGES } from "~/web/conditional.server";

// /current/friends (docs/spec.md §2 "Friends"): All Friends with their kids, Friend Requests
// Received (Accept, Deny), You Sent A Friend Request To (Cancel Request; denied ones Delete Request).
// Every button is a plain POST form told apart by `intent`; the action redirects back (PRG), and with
// JavaScript the same navigation revalidates the lists in place. Who sees what (docs/spec.md §6):
// each friend's circle and relationship, Block (friends and received requests), Blocked users
// (Unblock, show or hide their past comments) and co-parent invitations received.
// Removing or blocking someone who co-parents a kid with the user (either way, or is invited to)
// ends that co-parenting too, so it asks first (docs/decisions/0041): the button is a link to this
// page with ?confirm=remove&friendshipId= or ?confirm=block&userId=, which shows a confirm dialog
// (a modal with JavaScript, the page's own step without), and a post without `confirmed` that would
// end co-parenting is sent to that step instead of taking effect.

type Person = { friendshipId: number; userId: number; username: string; name: string; photo: PhotoData | null };

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

/** Where a Remove Friend or Block that also ends co-parenting asks first. */
function confirmUrl(intent: "remove" | "block", id: number): string {
  return intent === "remove"
    ? `${href("/current/friends")}?confirm=remove&friendshipId=${id}`
    : `${href("/current/friends")}?confirm=block&userId=${id}`;
}

type Confirm = { intent: "remove" | "block"; who: string; id: number; ends: string | null };

/** The confirm step the URL asks for, when it names a friend (or a received request) on the lists. */
function confirmFrom(url: URL, people: (Person & { ends: string | null })[]): Confirm | null {
  const intent = url.searchParams.get("confirm");
  if (intent !== "remove" && intent !== "block") return null;
  const id = parseId(url.searchParams.get(intent === "remove" ? "friendshipId" : "userId") ?? undefined);
  const p = people.find((x) => (intent === "remove" ? x.friendshipId : x.userId) === id);
  return p && id !== null ? { intent, who: p.username, id, ends: p.ends } : null;
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const [lists, familyInvitations, newLink] = await Promise.all([
    listFriends(user.id),
    listInvitations(user.id),
    readLinkFlash(request),
  ]);
  const receivedEntries = lists.pending.filter((e) => e.direction === "received");
  const shared = await coParentingBetween(
    user.id,
    [...lists.confirmed, ...receivedEntries].map((e) => e.user.id),
  );
  const withEnds = (e: FriendEntry) => ({
    ...person(e),
    ends: endsCoParentingText(e.user.username, shared.get(e.user.id)),
  });
  const friends = lists.confirmed.map((e) => ({
    ...withEnds(e),
    kids: e.kids.map((k) => ({ id: k.id, name: k.name, photo: k.photo })),
    label: e.label,
  }));
  const received = receivedEntries.map(withEnds);
  return {
    familyInvitations,
    newLink,
    friends,
    received,
    confirm: confirmFrom(new URL(request.url), [...friends, ...received]),
    sent: [...lists.pending.filter((e) => e.direction === "sent"), ...lists.denied]
      .sort((a, b) => a.friendshipId - b.friendshipId)
      .map((e) => ({ ...person(e), denied: e.status === "denied" })),
    blocked: (await listBlocked(user.id)).map((b) => ({
      id: b.id,
      username: b.username,
      showComments: b.showComments,
    })),
    invitations: await coParentInvitationsFor(user.id),
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
    case "label":
      result = await setFriendLabel(user.id, id, {
        circle: form.get("circle"),
        relationship: form.get("relationship"),
      });
      if (!result.ok && result.kind === "invalid") return data({ error: result.message ?? STALE }, { status: 400 });
      break;
    default:
      return data({ error: "That request could not be handled." }, { status: 400 });
  }
  if (!result.ok) return data({ error: STALE }, { status: refusalStatus(result) });
  return redirect("/current/friends", { status: 303, headers: intent === "remove" ? FORGET_KEPT_PAGES : undefined });
}

export function meta() {
  return [{ title: "Friends – Sweet Moments" }];
}

/** Remove Friend or Block of someone who co-parents with the user: a link to the step that asks first. */
function AskFirstLink({
  intent,
  id,
  label,
  who,
  variant,
}: {
  intent: "remove" | "block";
  id: number;
  label: string;
  who: string;
  variant: "secondary" | "danger";
}) {
  return (
    <Link to={confirmUrl(intent, id)} preventScrollReset className={`button button--small button--${variant}`}>
      {label}
      <span className="visually-hidden"> ({who})</span>
    </Link>
  );
}

/** The step before a Remove Friend or Block that also ends co-parenting (or any, when the URL asks). */
function ConfirmEnd({ confirm }: { confirm: Confirm }) {
  const location = useLocation();
  const remove = confirm.intent === "remove";
  const question = `${remove ? `Remove ${confirm.who} from your friends?` : `Block ${confirm.who}?`}${confirm.ends ? ` ${confirm.ends}` : ""}`;
  return (
    <ConfirmDialog
      title={remove ? "Confirm Remove Friend" : "Confirm Block"}
      question={question}
      closeTo={location.pathname}
      yesLabel={remove ? "Yes (Remove Friend)" : "Yes (Block)"}
      noLabel={remove ? "No (Keep Friend)" : "No (Don't Block)"}
      action="/current/friends"
      intent={confirm.intent}
      hidden={{ [remove ? "friendshipId" : "userId"]: String(confirm.id), confirmed: "yes" }}
    />
  );
}

/** One POST button; says it is busy while its own form is on its way. */
function ActionButton({
  intent,
  friendshipId,
  label,
  busyLabel,
  who,
  variant = "secondary",
}: {
  intent: string;
  friendshipId: number;
  label: string;
  busyLabel: string;
  who: string;
  variant?: "primary" | "secondary" | "danger";
}) {
  const navigation = useNavigation();
  const once = useSubmitOnce(navigation.state !== "idle");
  const busy =
    navigation.state !== "idle" &&
    navigation.formData?.get("intent") === intent &&
    navigation.formData?.get("friendshipId") === String(friendshipId);
  return (
    <Form method="post" action="/current/friends" preventScrollReset {...once()}>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="friendshipId" value={friendshipId} />
      <button
        type="submit"
        className={`button button--small button--${variant}`}
        aria-disabled={busy || undefined}
        onClick={(e) => {
          if (busy) e.preventDefault(); // already on its way
        }}
      >
        {busy ? busyLabel : label}
        <span className="visually-hidden"> ({who})</span>
      </button>
    </Form>
  );
}

function Who({ p }: { p: Person }) {
  return (
    <div className="friend-who">
      <Photo photo={p.photo} alt={p.username} decorative sizes="48px" className="friend-who__photo" />
      <div>
        <span className="friend-who__username">{p.username}</span>
        {p.name !== p.username ? <span className="friend-who__name">{p.name}</span> : null}
      </div>
    </div>
  );
}

/** One of the three lists: its heading (and `action` beside it), each person with `children(person)`, or `empty`. */
function FriendSection<P extends Person>({
  id,
  heading,
  action,
  empty,
  people,
  children,
}: {
  id: string;
  heading: string;
  action?: ReactNode;
  empty: string;
  people: P[];
  children: (person: P) => ReactNode;
}) {
  const title = <h2 id={id}>{heading}</h2>;
  return (
    <section aria-labelledby={id} className="friends-section">
      {action ? (
        <div className="friends-section__head">
          {title}
          {action}
        </div>
      ) : (
        title
      )}
      {people.length === 0 ? (
        id === "all-friends" ? (
          <EmptyState art="friends" text={empty} />
        ) : (
          <p className="empty">{empty}</p>
        )
      ) : (
        <ul className="friend-list">
          {people.map((p) => (
            <li key={p.friendshipId} className="card friend">
              <Who p={p} />
              {children(p)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export default function FriendsPage({ loaderData, actionData }: Route.ComponentProps) {
  const { friends, received, sent, blocked, invitations, familyInvitations, newLink, confirm } = loaderData;
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
      />

      <FriendSection
        id="all-friends"
        heading="All Friends"
        action={
          <Link to="/friendships/new" className="button button--primary">
            Add A New Friend
          </Link>
        }
        empty="No friends found"
        people={friends}
      >
        {(f) => (
          <>
            {f.kids.length ? (
              <ul className="friend-kids" aria-label={`${f.username}'s kids`}>
                {f.kids.map((k) => (
                  <li key={k.id}>
                    <Link to={href("/kids/:kidId/dailyLogs", { kidId: String(k.id) })} className="friend-kid">
                      <Photo
                        photo={k.photo}
                        alt={k.name}
                        decorative
                        icon="child"
                        sizes="40px"
                        className="friend-kid__photo"
                      />
                      <span>{k.name}</span>
                    </Link>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="empty friend-kids-empty">No kids yet</p>
            )}
            <FriendLabelForm friendshipId={f.friendshipId} who={f.username} label={f.label} />
            <div className="button-row">
              {f.ends ? (
                <>
                  <AskFirstLink
                    intent="remove"
                    id={f.friendshipId}
                    label="Remove Friend"
                    who={f.username}
                    variant="secondary"
                  />
                  <AskFirstLink intent="block" id={f.userId} label="Block" who={f.username} variant="danger" />
                </>
              ) : (
                <>
                  <ActionButton
                    intent="remove"
                    friendshipId={f.friendshipId}
                    label="Remove Friend"
                    busyLabel="Removing…"
                    who={f.username}
                  />
                  <BlockButton userId={f.userId} who={f.username} />
                </>
              )}
            </div>
          </>
        )}
      </FriendSection>

      <FriendSection
        id="requests-received"
        heading="Friend Requests Received"
        empty="No friend requests received"
        people={received}
      >
        {(r) => (
          <div className="button-row">
            <ActionButton
              intent="accept"
              friendshipId={r.friendshipId}
              label="Accept"
              busyLabel="Accepting…"
              who={r.username}
              variant="primary"
            />
            <ActionButton
              intent="deny"
              friendshipId={r.friendshipId}
              label="Deny"
              busyLabel="Denying…"
              who={r.username}
            />
            <BlockButton userId={r.userId} who={r.username} />
          </div>
        )}
      </FriendSection>

      <FriendSection
        id="requests-sent"
        heading="You Sent A Friend Request To"
        empty="No friend requests sent"
        people={sent}
      >
        {(s) =>
          s.denied ? (
            <div className="button-row">
              <span className="friend-status friend-status--denied">Denied</span>
              <ActionButton
                intent="delete-denied"
                friendshipId={s.friendshipId}
                label="Delete Request"
                busyLabel="Deleting…"
                who={s.username}
              />
            </div>
          ) : (
            <ActionButton
              intent="cancel"
              friendshipId={s.friendshipId}
              label="Cancel Request"
              busyLabel="Cancelling…"
              who={s.username}
            />
          )
        }
      </FriendSection>

      <CoParentInvitationsSection invitations={invitations} />
      <BlockedSection blocked={blocked} />
      {confirm ? <ConfirmEnd confirm={confirm} /> : null}
    </div>
  );
}
