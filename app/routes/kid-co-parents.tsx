import { data, Form, Link, redirect, useNavigation, href } from "react-router";
import type { Route } from "./+types/kid-co-parents";
import "~/styles/friends.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { viewKid } from "~/models/kids.server";
import {
  coParentsOf,
  inviteCoParent,
  isKidShownToFriends,
  removeCoParent,
  showKidToFriends,
} from "~/models/co-parents.server";
import { listFriends } from "~/models/friend-lists.server";
import { OWNER_ONLY, pageRefusal, refusalStatus } from "~/web/refusal.server";
import { SUBMISSION_FIELD } from "~/forms/submission";
import { SubmissionToken, useSubmitOnce } from "~/components/form-basics";
import { PersonChoice } from "~/components/person-choice";
import { displayName } from "~/lib/names";

// /kids/:kidId/co-parents (docs/spec.md §6 "Co-parents"): the kid's owner and co-parents see who
// co-parents the kid; the owner invites an accepted friend and removes a co-parent or an
// invitation; a co-parent leaves. Plain POST forms told apart by `intent` (PRG). A kid handed over
// to its owner when the other parent deleted their account is hidden from the owner's friends until
// the owner shows it here (docs/decisions/0041-co-parenting-follows-the-friendship.md).

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const view = await viewKid(user.id, pageId(params.kidId), "change");
  if (!view.ok) throw pageRefusal(view, { forbidden: OWNER_ONLY });
  const { kid } = view;
  const coParents = (await coParentsOf([kid.id], { pending: true })).get(kid.id) ?? [];
  const taken = new Set(coParents.map((c) => c.id));
  const friends = view.isOwner ? (await listFriends(user.id)).confirmed.filter((f) => !taken.has(f.user.id)) : [];
  return {
    kid: { id: kid.id, name: kid.name },
    hiddenFromFriends: !(await isKidShownToFriends(kid.id)),
    isOwner: view.isOwner,
    me: user.id,
    coParents,
    // by name, the username as a hint: never a list of bare usernames (decision 0060)
    candidates: friends.map((f) => ({ id: f.user.id, name: displayName(f.user), username: f.user.username })),
  };
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  // those who may not see the kid get the not-found page, a friend 403, before the body is read
  const allowed = await viewKid(user.id, kidId, "change");
  if (!allowed.ok) throw pageRefusal(allowed, { forbidden: OWNER_ONLY });
  const form = await request.formData();
  const intent = form.get("intent");
  const userId = form.get("userId");
  let result;
  switch (intent) {
    case "invite":
      result = await inviteCoParent(user.id, kidId, userId, { token: form.get(SUBMISSION_FIELD) });
      break;
    case "remove":
      result = await removeCoParent(user.id, kidId, userId);
      break;
    case "show-to-friends":
      result = await showKidToFriends(user.id, kidId);
      break;
    case "leave":
      result = await removeCoParent(user.id, kidId, user.id);
      if (result.ok) return redirect("/my-kids-list", 303);
      break;
    default:
      return data({ error: "That request could not be handled." }, { status: 400 });
  }
  if (!result.ok) {
    if (result.kind === "invalid" || result.kind === "conflict")
      return data({ error: result.message ?? "That did not work." }, { status: 400 });
    if (result.kind === "not-found" && intent !== "invite")
      return data({ error: "That co-parent is no longer there." }, { status: refusalStatus(result) });
    throw pageRefusal(result, { forbidden: OWNER_ONLY });
  }
  return redirect(href("/kids/:kidId/co-parents", { kidId: String(kidId) }), 303);
}

export default function KidCoParents({ loaderData, actionData }: Route.ComponentProps) {
  const { kid, isOwner, me, coParents, candidates, hiddenFromFriends } = loaderData;
  const navigation = useNavigation();
  const once = useSubmitOnce(navigation.state !== "idle");
  return (
    <div className="page friends-page">
      <title>{`Co-parents of ${kid.name} – Sweet Moments`}</title>
      <p>
        <Link to={href("/kids/:kidId/dailyLogs", { kidId: String(kid.id) })}>{`${kid.name}'s Moments`}</Link>
      </p>
      <h1>Co-parents of {kid.name}</h1>
      <p>
        Co-parents add moments, change any moment of {kid.name} and {kid.name} itself, and see moments for “Only us”.
      </p>
      {actionData?.error ? (
        <p className="notice notice--error" role="alert">
          {actionData.error}
        </p>
      ) : null}
      {hiddenFromFriends ? (
        <section aria-labelledby="handed-over" className="card stack">
          <h2 id="handed-over">
            Only {kid.name}'s parents see {kid.name}
          </h2>
          <p>
            {kid.name} was handed over when {kid.name}'s other parent deleted their account. Nobody else sees {kid.name}{" "}
            or any moment until {isOwner ? "you choose" : "the owner chooses"}: every moment is “Only us”.
            {isOwner
              ? ` Once you show ${kid.name} to your friends, each moment is seen as its audience says (change it on the moment).`
              : ""}
          </p>
          {isOwner ? (
            <Form method="post">
              <input type="hidden" name="intent" value="show-to-friends" />
              <button type="submit" className="button button--primary">
                Show {kid.name} to my friends
              </button>
            </Form>
          ) : null}
        </section>
      ) : null}
      {coParents.length === 0 ? (
        <p className="empty">No co-parents yet</p>
      ) : (
        <ul className="friend-list" aria-label="Co-parents">
          {coParents.map((c) => (
            <li key={c.id} className="card friend">
              <div className="friend-who">
                <div>
                  <span className="friend-who__username">
                    {c.name}
                    {c.pending ? " (invited)" : ""}
                  </span>
                  <span className="friend-who__name">@{c.username}</span>
                </div>
              </div>
              {isOwner ? (
                <Form method="post">
                  <input type="hidden" name="intent" value="remove" />
                  <input type="hidden" name="userId" value={c.id} />
                  <button type="submit" className="button button--small button--danger">
                    {c.pending ? "Cancel invitation" : "Remove co-parent"}
                    <span className="visually-hidden"> ({c.name})</span>
                  </button>
                </Form>
              ) : c.id === me ? (
                <Form method="post">
                  <input type="hidden" name="intent" value="leave" />
                  <button type="submit" className="button button--small button--danger">
                    Leave as co-parent
                  </button>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {isOwner ? (
        candidates.length ? (
          <Form method="post" className="stack" {...once()}>
            <input type="hidden" name="intent" value="invite" />
            <SubmissionToken />
            <PersonChoice
              name="userId"
              legend="Invite a friend as co-parent"
              people={candidates}
              idPrefix="co-parent-user"
            />
            <div className="button-row">
              <button type="submit" className="button button--primary">
                Invite as co-parent
              </button>
            </div>
          </Form>
        ) : (
          <p className="empty">Only accepted friends can be invited as co-parents.</p>
        )
      ) : null}
    </div>
  );
}
