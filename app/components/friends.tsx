import type { ReactNode } from "react";
import { Form, href, Link, useLocation, useNavigation } from "react-router";
import type { FriendLabel } from "~/forms/circles";
import type { Photo as PhotoData } from "~/images/photo";
import { BlockButton, FriendLabelForm } from "./circles";
import { EmptyState } from "./empty-state";
import { useSubmitOnce } from "./form-basics";
import { ConfirmDialog } from "./modal";
import { Photo } from "./photo";

// The lists of the friends page (app/routes/friends.tsx): All Friends, Friend Requests Received,
// You Sent A Friend Request To, each person with its buttons, and the step that asks before a
// Remove Friend or Block that also ends co-parenting.

export type Person = { friendshipId: number; userId: number; username: string; name: string; photo: PhotoData | null };

/** A friend on All Friends: their kids, how the user files them, what removing them ends. */
export type FriendPerson = Person & {
  ends: string | null;
  kids: { id: number; name: string; photo: PhotoData | null }[];
  label: FriendLabel;
};

/** Someone whose request the user received: what blocking them ends. */
export type ReceivedPerson = Person & { ends: string | null };

/** Someone the user sent a request to: denied or still pending. */
export type SentPerson = Person & { denied: boolean };

/** Where a Remove Friend or Block that also ends co-parenting asks first. */
export function confirmUrl(intent: "remove" | "block", id: number): string {
  return intent === "remove"
    ? `${href("/current/friends")}?confirm=remove&friendshipId=${id}`
    : `${href("/current/friends")}?confirm=block&userId=${id}`;
}

/** The step the page shows before a Remove Friend or Block that also ends co-parenting. */
export type Confirm = { intent: "remove" | "block"; who: string; id: number; ends: string | null };

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

/** All Friends: each friend with their kids, their circle, Remove Friend and Block. */
export function AllFriendsSection({ friends }: { friends: FriendPerson[] }) {
  return (
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
  );
}

/** Friend Requests Received: Accept, Deny, Block. */
export function RequestsReceivedSection({ received }: { received: ReceivedPerson[] }) {
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
