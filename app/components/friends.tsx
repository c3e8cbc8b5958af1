import type { ReactNode } from "react";
import { Form, href, Link, useLocation, useNavigation } from "react-router";
import { CIRCLE_LABELS, FRIEND_RELATIONSHIP_LABELS, type FriendLabel } from "~/forms/circles";
import type { Photo as PhotoData } from "~/images/photo";
import { BlockButton } from "./circles";
import { EmptyState } from "./empty-state";
import { useSubmitOnce } from "./form-basics";
import { ListLink } from "./list-link";
import { ConfirmDialog } from "./modal";
import { Photo } from "./photo";

// The lists of the friends page (app/routes/friends.tsx): All Friends (each a link to the friend's
// own page), Friend Requests Received, You Sent A Friend Request To, each request with its buttons,
// and the step that asks before a Remove Friend or Block that also ends co-parenting.

export type Person = { friendshipId: number; userId: number; username: string; name: string; photo: PhotoData | null };

/** A friend on All Friends: how the user files them. */
export type FriendListPerson = Person & { label: FriendLabel };

/** A friend on their own page: their kids, how the user files them, what removing them ends. */
export type FriendPerson = FriendListPerson & {
  ends: string | null;
  kids: { id: number; name: string; photo: PhotoData | null }[];
};

/** A friend's own page. */
export function friendUrl(userId: number): string {
  return href("/current/friends/:userId", { userId: String(userId) });
}

/** Someone the user sent a request to: denied or still pending. */
export type SentPerson = Person & { denied: boolean };

/**
 * Where a Remove Friend or Block that also ends co-parenting asks first: the friends page (a post
 * that skipped the step, the friend search's Block, a received request's Block).
 */
export function confirmUrl(intent: "remove" | "block", id: number): string {
  return intent === "remove"
    ? `${href("/current/friends")}?confirm=remove&friendshipId=${id}`
    : `${href("/current/friends")}?confirm=block&userId=${id}`;
}

/** The step the page shows before a Remove Friend or Block that also ends co-parenting. */
export type Confirm = { intent: "remove" | "block"; who: string; id: number; ends: string | null };

/** Remove Friend or Block of someone who co-parents with the user: a link to the step that asks first. */
export function AskFirstLink({
  to,
  label,
  who,
  variant,
}: {
  to: string;
  label: string;
  who: string;
  variant: "secondary" | "danger";
}) {
  return (
    <Link to={to} preventScrollReset className={`button button--small button--${variant}`}>
      {label}
      <span className="visually-hidden"> ({who})</span>
    </Link>
  );
}

/** The step before a Remove Friend or Block that also ends co-parenting (or any, when the URL asks). */
export function ConfirmEnd({ confirm }: { confirm: Confirm }) {
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
export function ActionButton({
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

/**
 * A person's picture beside their username and, when it differs, their name: in a request list,
 * or (`heading`) as the heading of a friend's own page.
 */
export function FriendWho({
  person,
  heading = false,
}: {
  person: Pick<Person, "photo" | "username" | "name">;
  heading?: boolean;
}) {
  const Username = heading ? "h1" : "span";
  const Name = heading ? "p" : "span";
  return (
    <div className={heading ? "friend-page__who" : "friend-who"}>
      <Photo
        photo={person.photo}
        alt={person.username}
        decorative
        sizes={heading ? "72px" : "48px"}
        className="friend-who__photo"
      />
      <div>
        <Username className={heading ? undefined : "friend-who__username"}>{person.username}</Username>
        {person.name !== person.username ? <Name className="friend-who__name">{person.name}</Name> : null}
      </div>
    </div>
  );
}

/** One of the request lists: its heading, each person with `children(person)`, or `empty`. */
function FriendSection<P extends Person>({
  id,
  heading,
  empty,
  people,
  children,
}: {
  id: string;
  heading: string;
  empty: string;
  people: P[];
  children: (person: P) => ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="friends-section">
      <h2 id={id}>{heading}</h2>
      {people.length === 0 ? (
        <p className="empty">{empty}</p>
      ) : (
        <ul className="friend-list">
          {people.map((p) => (
            <li key={p.friendshipId} className="card friend">
              <FriendWho person={p} />
              {children(p)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** How the user files a friend, as text: "Family · Grandparent", "Friends". */
function labelText(label: FriendLabel): string {
  const circle = CIRCLE_LABELS[label.circle];
  return label.relationship ? `${circle} · ${FRIEND_RELATIONSHIP_LABELS[label.relationship]}` : circle;
}

/**
 * All Friends: a list of people, each with their picture, name, circle and relationship, and one
 * link to their own page (app/routes/friend.tsx), where their kids and the forms are. Each entry
 * used to carry its forms: 50 friends were 200 KB of HTML and a quarter of the page's cost
 * (docs/decisions/0058-friends-as-a-list.md).
 */
export function AllFriendsSection({ friends }: { friends: FriendListPerson[] }) {
  return (
    <section aria-labelledby="all-friends" className="friends-section">
      <div className="friends-section__head">
        <h2 id="all-friends">All Friends</h2>
        <Link to="/friendships/new" className="button button--primary">
          Add A New Friend
        </Link>
      </div>
      {friends.length === 0 ? (
        <EmptyState art="friends" text="No friends found" />
      ) : (
        <ul className="friend-list">
          {friends.map((f) => (
            <li key={f.friendshipId}>
              <ListLink to={friendUrl(f.userId)} className="card friend-link">
                <Photo photo={f.photo} alt={f.username} decorative sizes="48px" className="friend-who__photo" />
                <b>{f.username}</b>
                {f.name !== f.username ? <span>{f.name}</span> : null}
                <span>{labelText(f.label)}</span>
              </ListLink>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Friend Requests Received: Accept, Deny, Block. */
export function RequestsReceivedSection({ received }: { received: Person[] }) {
  return (
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
  );
}

/** You Sent A Friend Request To: Cancel Request, or Delete Request once denied. */
export function RequestsSentSection({ sent }: { sent: SentPerson[] }) {
  return (
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
  );
}
