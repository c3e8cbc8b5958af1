import { href, Link } from "react-router";
import { BlockButton, FriendLabelForm } from "./circles";
import {
  ActionButton,
  AskFirstLink,
  type Confirm,
  ConfirmEnd,
  type FriendPerson,
  FriendWho,
  friendUrl,
} from "./friends";
import { Photo } from "./photo";

// A friend's own page (app/routes/friend.tsx): who they are, their kids, how the user files them
// (circle and relationship), Remove Friend and Block. The friends page lists people and links here
// (docs/decisions/0058-friends-as-a-list.md).

function FriendKids({ friend }: { friend: FriendPerson }) {
  if (!friend.kids.length) return <p className="empty friend-kids-empty">No kids yet</p>;
  return (
    <ul className="friend-kids" aria-label={`${friend.username}'s kids`}>
      {friend.kids.map((k) => (
        <li key={k.id}>
          <Link to={href("/kids/:kidId/dailyLogs", { kidId: String(k.id) })} className="friend-kid">
            <Photo photo={k.photo} alt={k.name} decorative icon="child" sizes="40px" className="friend-kid__photo" />
            <span>{k.name}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Remove Friend and Block: a plain post, or (when it also ends co-parenting) a link to the step that asks first. */
function EndButtons({ friend }: { friend: FriendPerson }) {
  const self = friendUrl(friend.userId);
  return (
    <div className="button-row">
      {friend.ends ? (
        <>
          <AskFirstLink to={`${self}?confirm=remove`} label="Remove Friend" who={friend.username} variant="secondary" />
          <AskFirstLink to={`${self}?confirm=block`} label="Block" who={friend.username} variant="danger" />
        </>
      ) : (
        <>
          <ActionButton
            intent="remove"
            friendshipId={friend.friendshipId}
            label="Remove Friend"
            busyLabel="Removing…"
            who={friend.username}
          />
          <BlockButton userId={friend.userId} who={friend.username} />
        </>
      )}
    </div>
  );
}

export function FriendPage({
  friend,
  error,
  confirm,
}: {
  friend: FriendPerson;
  error: string | null;
  confirm: Confirm | null;
}) {
  return (
    <div className="page friends-page friend-page">
      <p>
        <Link to={href("/current/friends")}>All friends</Link>
      </p>
      <FriendWho person={friend} heading />
      {error ? (
        <p className="notice notice--error" role="alert">
          {error}
        </p>
      ) : null}
      <section aria-labelledby="friend-kids" className="friends-section">
        <h2 id="friend-kids">Kids</h2>
        <FriendKids friend={friend} />
      </section>
      <section aria-labelledby="friend-label" className="friends-section">
        <h2 id="friend-label">Circle and relationship</h2>
        <FriendLabelForm
          friendshipId={friend.friendshipId}
          who={friend.username}
          label={friend.label}
          action={friendUrl(friend.userId)}
        />
      </section>
      <section aria-labelledby="friend-end" className="friends-section">
        <h2 id="friend-end">Friendship</h2>
        <EndButtons friend={friend} />
      </section>
      {confirm ? <ConfirmEnd confirm={confirm} /> : null}
    </div>
  );
}
