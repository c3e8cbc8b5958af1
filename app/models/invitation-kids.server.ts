import type { InvitationKidRow, InvitationRow, KidRow, UserRow } from "~/lib/tables";
import type { Db } from "~/lib/db.server";
import { inList, query } from "~/lib/query.server";
import { hashLinkToken, looksLikeLinkToken } from "~/lib/tokens.server";
import { displayName } from "~/lib/names";
import { siteOrigin } from "~/lib/config.server";
import { enqueueMail } from "~/mail/queue.server";
import { coParentAddedMail } from "~/mail/messages.server";
import { whereKidOwnedBy } from "./access.server";
import { addCoParentByInvitation } from "./co-parents.server";
import { notify } from "./notifications.server";
import { invalidField, type Refusal } from "./refusal";

// A partner in one step (docs/decisions/0060-co-parent-invitations.md): an invitation may name
// kids of its inviter (`invitation_kids`), and whoever accepts it (a new account joining, or an
// existing account's Accept) becomes, in the same transaction as the friendship, a co-parent of
// each of them the inviter still owns (addCoParentByInvitation asks the access module), and is
// told: a notification and a mail naming the kids. Only the kid's owner may name a kid, as only
// the owner invites co-parents on the kid's page.

export type InvitedKid = { id: number; name: string };

export const INVITATION_KID_MESSAGES = {
  notYours: "Choose among your own kids: only the parent who added a kid can make someone its co-parent.",
} as const;

const ownedAmong = query<{ ownerId: number; kidIds: number[] }, Pick<KidRow, "id" | "name">>((p, k) =>
  whereKidOwnedBy(inList(k("kids"), "kids.id", p("kidIds")), p("ownerId"))
    .orderBy("kids.id")
    .select("kids.id", "kids.name"),
);

/**
 * The kids `kidIds` as `ownerId`'s own (every one of them, or a refusal on the field
 * `coParentKids`: someone else's kid, one the inviter only co-parents, or no such kid; the same
 * answer for each, so nothing tells them apart). Without `conn` on the read connection.
 */
export async function ownKidsAmong(
  ownerId: number,
  kidIds: number[] | undefined,
  conn?: Db,
): Promise<{ ok: true; kids: InvitedKid[] } | Refusal> {
  const wanted = [...new Set(kidIds ?? [])];
  if (!wanted.length) return { ok: true, kids: [] };
  const kids = await ownedAmong.all({ ownerId, kidIds: wanted }, { conn });
  if (kids.length !== wanted.length) return invalidField("coParentKids", INVITATION_KID_MESSAGES.notYours);
  return { ok: true, kids };
}

/**
 * Names the kids on a new invitation, on `trx` (its creating transaction): those of `kidIds` the
 * inviter owns now (one removed since the form was checked is left out). Answers them.
 */
export async function saveInvitationKids(
  trx: Db,
  invitation: { id: number; inviterId: number },
  kidIds: number[] | undefined,
): Promise<InvitedKid[]> {
  if (!kidIds?.length) return [];
  const kids = await ownedAmong.all({ ownerId: invitation.inviterId, kidIds: [...new Set(kidIds)] }, { conn: trx });
  if (kids.length)
    await trx("invitation_kids").insert(kids.map((kid) => ({ invitation_id: invitation.id, kid_id: kid.id })));
  return kids;
}

type KidOfInvitation = Pick<KidRow, "id" | "name"> & Pick<InvitationKidRow, "invitation_id">;

// a kid is named while its inviter owns it (handed over: no longer the inviter's to give)
const kidsOfInvitations = query<{ ids: number[] }, KidOfInvitation>((p, k) =>
  whereKidOwnedBy(
    inList(
      k("invitation_kids")
        .join("invitations", "invitations.id", "invitation_kids.invitation_id")
        .join("kids", "kids.id", "invitation_kids.kid_id"),
      "invitation_kids.invitation_id",
      p("ids"),
    ),
    k.ref("invitations.inviter_id"),
  )
    .orderBy("kids.id")
    .select("invitation_kids.invitation_id", "kids.id", "kids.name"),
);

/** The kids each invitation makes its answer a co-parent of, by invitation id (one query; none: absent). */
export async function kidsOfInvitationIds(ids: number[], conn?: Db): Promise<Map<number, InvitedKid[]>> {
  const out = new Map<number, InvitedKid[]>();
  if (!ids.length) return out;
  for (const row of await kidsOfInvitations.all({ ids: [...new Set(ids)] }, { conn })) {
    const list = out.get(row.invitation_id) ?? [];
    list.push({ id: row.id, name: row.name });
    out.set(row.invitation_id, list);
  }
  return out;
}

const invitationIdByHash = query<{ hash: string }, Pick<InvitationRow, "id">>((p, k) =>
  k("invitations").where("invitations.token_hash", p("hash")).first("invitations.id"),
);

/** The kids an invitation link makes its answer a co-parent of (its page says so before anyone answers). */
export async function kidsOfInvitationLink(token: string | undefined): Promise<InvitedKid[]> {
  if (!looksLikeLinkToken(token)) return [];
  const row = await invitationIdByHash.first({ hash: hashLinkToken(token) });
  return row ? ((await kidsOfInvitationIds([row.id])).get(row.id) ?? []) : [];
}

type Person = Pick<UserRow, "email" | "username" | "first_name" | "last_name">;
const personById = query<{ id: number }, Person>((p, k) =>
  k("users").where("users.id", p("id")).first("users.email", "users.username", "users.first_name", "users.last_name"),
);

/**
 * On `trx`, the transaction in which `userId` accepted the invitation (and became the inviter's
 * friend): makes them a co-parent of each kid it names that the inviter still owns, then tells
 * them (a notification, and a mail naming the kids, linking to My Kids). Answers the
 * kids they now co-parent.
 */
export async function grantInvitationKids(
  trx: Db,
  invitation: { id: number; inviterId: number },
  userId: number,
): Promise<InvitedKid[]> {
  const named = (await kidsOfInvitationIds([invitation.id], trx)).get(invitation.id) ?? [];
  const granted: InvitedKid[] = [];
  let added = false;
  for (const kid of named) {
    const outcome = await addCoParentByInvitation(trx, invitation.inviterId, kid.id, userId);
    if (outcome) granted.push(kid);
    if (outcome === "added") added = true;
  }
  // nothing new (they co-parented every one already): nothing to tell
  if (!added) return granted;
  await notify(trx, [{ userId, kind: "co-parent-added", actorId: invitation.inviterId }]);
  const partner = await personById.first({ id: userId }, { conn: trx });
  const inviter = await personById.first({ id: invitation.inviterId }, { conn: trx });
  if (partner && inviter) {
    await enqueueMail(trx, {
      ...coParentAddedMail({
        to: partner.email,
        inviterName: displayName(inviter),
        kids: granted.map((k) => k.name),
        url: `${siteOrigin()}/my-kids-list`,
      }),
      users: [userId, invitation.inviterId],
    });
  }
  return granted;
}
