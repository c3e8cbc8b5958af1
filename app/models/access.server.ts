// THE access module (docs/decisions/0012-refusal-and-access-module.md,
// docs/decisions/0031-audiences-circles-co-parents-blocks.md). The rule of the product:
// - A kid is seen by its owner, its co-parents (accepted) and the owner's accepted friends.
// - A moment is seen by the kid's owner and co-parents whatever its audience; by the owner's
//   accepted friends when its audience is "everyone"; by those of them the owner put in the
//   Family circle when it is "family"; by nobody else ("us").
// - A kid handed over to a co-parent when its owner deleted their account is hidden from the new
//   owner's friends (`kids.shown_to_friends` false: parents only) until the new owner shows it
//   (docs/decisions/0041-co-parenting-follows-the-friendship.md).
// - Pending and denied requests give nothing. A block ends the friendship and any co-parent role
//   between the two at once (app/models/blocks.server.ts), so no rule below needs to ask about
//   blocks; only the comments of a blocked user on the blocker's moments are hidden here
//   (`whereCommentShown`), nothing of either reaches the other through digests, notifications
//   and exports (`whereNoBlockWith`), and `isBlockedBetween` answers other features.
// - The owner and co-parents change a kid and its moments ("change"); only the owner removes the
//   kid or manages its co-parents ("own"); only its author changes a comment.
//
// Everything that depends on who is asking asks here: the guards for one thing (requireKid,
// requireMoment, requireCommentAuthor, canViewImage, canSeeKidsOf, requireFriend, requireFriendshipParty,
// requireInvitationOwner, requireInvitedFriend), the conditions for lists (whereKidVisibleTo,
// whereMomentVisibleTo, whereKidParentIs, whereCommentShown, whereVisibleTo, whereOwnedBy,
// whereKidOwnedBy; visibleKidIds for lists across families; whereUserSeesMoment and
// momentAudience, who may see one moment, for telling them about it), the blocks' answers
// (isBlockedBetween, isBlockedWithAddress, whereNotBlockedBy, whereNoBlockWith) and the access state of conditional
// pages (accessStamp), and which audiences each circle sees (audiencesSeenBy: the one table the
// conditions and every sentence about what someone sees are made of; circlesFiledBy, the circle
// an owner files each of some users in). The guards read their facts (co-parent row, friendship and its circle, the
// moment's audience) in ONE query whose conditions are the same functions the lists use (parentOf,
// acceptedBetween, ownerFilesAsFamily).
//
// The friendship has ONE SQL form here: the ordered pair user_low/user_high with status
// "accepted". acceptedBetween tests it for a pair (both orders, each one lookup of the UNIQUE
// (user_low, user_high) index); acceptedFriendIds (accepted rows) and accessStamp (rows of any
// status) list the viewer's rows from both sides instead (user_low = viewer by that index,
// user_high = viewer by the (user_high, status) index), so the feed starts from the viewer's few
// friendships (docs/decisions/0028-moment-dates-and-feed.md). The pair is stored once, as
// user_id/friend_id (who sent the request: only the state machine reads them,
// app/models/friendships.server.ts); user_low/user_high are generated from them by the database,
// so the ordered pair read here can never disagree with the request.
// Outside this module that state machine is the only code that touches the friendships table
// (besides the migrations and the demo seed); what other modules need of it (a block ends it, a
// side's circle, the friend count) is a function there.
//
// The guards answer the access facts or a Refusal (app/models/refusal.ts) in the API's words
// (docs/api.md); callers may reword it (likes and comments have their own messages). Without
// `conn` they read on the read connection; with `conn` (a write transaction) inside it. Same SQL
// either way.
// The module is this file and the folder app/models/access/ (only this file imports from it):
// pairs.server.ts (the SQL forms of a friendship, a circle, a co-parent role), lists.server.ts
// (the list conditions), facts.server.ts (the facts of one kid or moment), guards.server.ts,
// invitations.server.ts (the guards), blocks.server.ts (blocks), audience.server.ts (who may see
// one moment), stamp.server.ts (the access state) and circles.server.ts (the audiences a circle
// sees), drafts.server.ts (a draft moment: its author's alone, docs/decisions/0065-drafts.md).
// Everything else imports from here.

export {
  whereCommentShown,
  whereKidOwnedBy,
  whereKidParentIs,
  whereKidVisibleTo,
  whereMomentExportedBy,
  whereMomentVisibleTo,
  whereOwnedBy,
  whereUserSeesMoment,
  whereVisibleTo,
  visibleKidIds,
} from "./access/lists.server";
export { isBlockedBetween, isBlockedWithAddress, whereNoBlockWith, whereNotBlockedBy } from "./access/blocks.server";
export { kidAccess, momentAccess } from "./access/facts.server";
export {
  ACCESS_MESSAGES,
  type Need,
  canSeeKidsOf,
  canViewImage,
  requireCommentAuthor,
  requireFriend,
  requireFriendshipParty,
  requireKid,
  requireMoment,
  requireVideo,
  type VideoGrant,
} from "./access/guards.server";
export { relativeLinksOpen, requireInvitationOwner, requireInvitedFriend } from "./access/invitations.server";
export { accessStamp } from "./access/stamp.server";
export {
  AUDIENCES_SEEN_BY_CIRCLE,
  audiencesSeenBy,
  audiencesText,
  circleSeesTexts,
  circlesFiledBy,
} from "./access/circles.server";
export { momentAudience } from "./access/audience.server";
export { DRAFT_MESSAGES, type DraftGrant, requireDraft, whereDraftAuthor } from "./access/drafts.server";
