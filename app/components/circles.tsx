import { useEffect, useState } from "react";
import { Form, Link, href } from "react-router";
import {
  asRelationship,
  type Circle,
  impliedCircle,
  CIRCLE_LABELS,
  CIRCLES,
  FRIEND_RELATIONSHIP_LABELS,
  FRIEND_RELATIONSHIPS,
  type FriendLabel,
} from "~/forms/circles";

// The friends page's forms of docs/spec.md §6 (app/routes/friends.tsx and a friend's own page,
// app/routes/friend.tsx; friend search's Block too):
// plain POST forms, each told apart by `intent`, that work without JavaScript.

/** A friend's circle and relationship, with Save (posted to `action`: the friend's own page). */
export function FriendLabelForm({
  friendshipId,
  who,
  label,
  action,
}: {
  friendshipId: number;
  who: string;
  label: FriendLabel;
  action: string;
}) {
  const id = `friend-${friendshipId}`;
  // the circle follows a newly chosen relationship until it is changed by hand (the server does
  // the same without JavaScript: circleOfLabelForm, from the hidden fields)
  const [circle, setCircle] = useState(label.circle);
  const [byHand, setByHand] = useState(false);
  useEffect(() => {
    setCircle(label.circle);
    setByHand(false);
  }, [label.circle, label.relationship]);
  return (
    <Form method="post" action={action} preventScrollReset className="friend-label">
      <input type="hidden" name="intent" value="label" />
      <input type="hidden" name="friendshipId" value={friendshipId} />
      <input type="hidden" name="circleWas" value={label.circle} />
      <input type="hidden" name="relationshipWas" value={label.relationship ?? ""} />
      <div className="field">
        <label htmlFor={`${id}-circle`}>
          Circle<span className="visually-hidden"> of {who}</span>
        </label>
        <select
          id={`${id}-circle`}
          name="circle"
          value={circle}
          onChange={(e) => {
            setCircle(e.currentTarget.value as Circle);
            setByHand(true);
          }}
        >
          {CIRCLES.map((c) => (
            <option key={c} value={c}>
              {CIRCLE_LABELS[c]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-relationship`}>
          Relationship<span className="visually-hidden"> of {who}</span>
        </label>
        <select
          id={`${id}-relationship`}
          name="relationship"
          defaultValue={label.relationship ?? ""}
          onChange={(e) => {
            const relationship = asRelationship(e.currentTarget.value);
            if (relationship && !byHand) setCircle(impliedCircle(relationship));
          }}
        >
          <option value="">Not set</option>
          {FRIEND_RELATIONSHIPS.map((r) => (
            <option key={r} value={r}>
              {FRIEND_RELATIONSHIP_LABELS[r]}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="button button--small button--secondary">
        Save<span className="visually-hidden"> circle of {who}</span>
      </button>
    </Form>
  );
}

/** "Block": posts to the friends page (whatever page it is on), which goes back to the friends page. */
export function BlockButton({ userId, who }: { userId: number; who: string }) {
  return (
    <Form method="post" action="/current/friends" preventScrollReset>
      <input type="hidden" name="intent" value="block" />
      <input type="hidden" name="userId" value={userId} />
      <button type="submit" className="button button--small button--danger">
        Block<span className="visually-hidden"> ({who})</span>
      </button>
    </Form>
  );
}

/** One POST button naming a user or an invitation. */
function PostButton({
  intent,
  fields,
  label,
  who,
  variant = "secondary",
}: {
  intent: string;
  fields: Record<string, string | number>;
  label: string;
  who: string;
  variant?: string;
}) {
  return (
    <Form method="post" action="/current/friends" preventScrollReset>
      <input type="hidden" name="intent" value={intent} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={`button button--small button--${variant}`}>
        {label}
        <span className="visually-hidden"> ({who})</span>
      </button>
    </Form>
  );
}

export type BlockedEntry = { id: number; username: string; showComments: boolean };
export type InvitationEntry = { id: number; kidId: number; kidName: string; ownerUsername: string; ownerName: string };

/** Blocked users: Unblock, and show or hide their past comments on your moments. */
export function BlockedSection({ blocked }: { blocked: BlockedEntry[] }) {
  return (
    <section aria-labelledby="blocked-users" className="friends-section">
      <h2 id="blocked-users">Blocked users</h2>
      {blocked.length === 0 ? (
        <p className="empty">You have not blocked anyone</p>
      ) : (
        <ul className="friend-list">
          {blocked.map((b) => (
            <li key={b.id} className="card friend">
              <span className="friend-who__username">{b.username}</span>
              <span className="field-hint">
                {b.showComments
                  ? "Their past comments on your moments are shown."
                  : "Their past comments on your moments are hidden."}
              </span>
              <div className="button-row">
                <PostButton
                  intent={b.showComments ? "hide-comments" : "show-comments"}
                  fields={{ userId: b.id }}
                  label={b.showComments ? "Hide their comments" : "Show their comments"}
                  who={b.username}
                />
                <PostButton intent="unblock" fields={{ userId: b.id }} label="Unblock" who={b.username} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Co-parent invitations received: Accept, Decline. */
export function CoParentInvitationsSection({ invitations }: { invitations: InvitationEntry[] }) {
  if (!invitations.length) return null;
  return (
    <section aria-labelledby="co-parent-invitations" className="friends-section">
      <h2 id="co-parent-invitations">Co-parent invitations</h2>
      <ul className="friend-list">
        {invitations.map((i) => {
          const who = `${i.kidName} of ${i.ownerName}`;
          return (
            <li key={i.id} className="card friend">
              <span>
                {i.ownerName} invites you to co-parent{" "}
                <Link to={href("/kids/:kidId/dailyLogs", { kidId: String(i.kidId) })}>{i.kidName}</Link>
              </span>
              <div className="button-row">
                <PostButton
                  intent="accept-co-parent"
                  fields={{ invitationId: i.id }}
                  label="Accept"
                  who={who}
                  variant="primary"
                />
                <PostButton intent="decline-co-parent" fields={{ invitationId: i.id }} label="Decline" who={who} />
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
