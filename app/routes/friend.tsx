import { data, redirect } from "react-router";
import type { Route } from "./+types/friend";
import "~/styles/friends.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { pageRefusal, refusalStatus } from "~/web/refusal.server";
import { requireFriend } from "~/models/access.server";
import { getFriend } from "~/models/friend-lists.server";
import { setFriendLabel } from "~/models/circles.server";
import { circleOfLabelForm } from "~/forms/circles";
import { coParentingBetween, endsCoParentingText } from "~/models/co-parents.server";
import { displayName } from "~/lib/names";
import { type Confirm, friendUrl } from "~/components/friends";
import { FriendPage } from "~/components/friend-page";

// /current/friends/{userId}: one friend's own page (docs/spec.md §2 "Friends",
// docs/decisions/0058-friends-as-a-list.md): their kids, the user's circle and relationship for them
// (posted here, back here), Remove Friend and Block (posted to the friends page, which goes back to
// the list). Only an accepted friend has one: anyone else's id is the plain not-found page
// (the access module's requireFriend). ?confirm=remove or ?confirm=block is the step that asks
// before ending co-parenting too (docs/decisions/0041).

async function friendOf(request: Request, userIdParam: string | undefined) {
  const user = await requireUser(request);
  const grant = await requireFriend(user.id, pageId(userIdParam));
  if (!grant.ok) throw pageRefusal(grant);
  return { user, friendshipId: grant.friendshipId };
}

export async function loader({ request, params }: Route.LoaderArgs) {
  const { user, friendshipId } = await friendOf(request, params.userId);
  const entry = await getFriend(user.id, friendshipId);
  if (!entry) throw data("Not found", { status: 404 });
  const other = entry.user;
  const ends = endsCoParentingText(other.username, (await coParentingBetween(user.id, [other.id])).get(other.id));
  const intent = new URL(request.url).searchParams.get("confirm");
  const confirm: Confirm | null =
    intent === "remove" || intent === "block"
      ? { intent, who: other.username, id: intent === "remove" ? friendshipId : other.id, ends }
      : null;
  return {
    friend: {
      friendshipId,
      userId: other.id,
      username: other.username,
      name: displayName(other),
      photo: other.photo,
      label: entry.label,
      kids: entry.kids.map((k) => ({ id: k.id, name: k.name, photo: k.photo })),
      ends,
    },
    confirm,
  };
}

const STALE = "That request has changed in the meantime. The page is up to date.";

/** The circle and relationship form (Remove Friend and Block post to the friends page). */
export async function action({ request, params }: Route.ActionArgs) {
  const { user, friendshipId } = await friendOf(request, params.userId);
  const form = await request.formData();
  if (form.get("intent") !== "label") return data({ error: "That request could not be handled." }, { status: 400 });
  // a newly chosen relationship brings its circle unless the same Save changed the circle too
  // (docs/decisions/0059-the-circle-a-relationship-implies.md)
  const result = await setFriendLabel(user.id, friendshipId, {
    circle: circleOfLabelForm(
      { circle: form.get("circle"), relationship: form.get("relationship") },
      { circle: form.get("circleWas"), relationship: form.get("relationshipWas") },
    ),
    relationship: form.get("relationship"),
  });
  if (!result.ok) {
    const message = result.kind === "invalid" ? (result.message ?? STALE) : STALE;
    return data({ error: message }, { status: result.kind === "invalid" ? 400 : refusalStatus(result) });
  }
  return redirect(friendUrl(Number(params.userId)), 303);
}

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: `${loaderData?.friend.username ?? "Friend"} – Friends – Sweet Moments` }];
}

export default function FriendRoute({ loaderData, actionData }: Route.ComponentProps) {
  return <FriendPage friend={loaderData.friend} error={actionData?.error ?? null} confirm={loaderData.confirm} />;
}
