import { useEffect, useRef } from "react";
import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  createContext,
  data,
  Form,
  Link,
  redirect,
  useLocation,
  useNavigate,
  useNavigation,
  type ShouldRevalidateFunctionArgs,
  href,
} from "react-router";
import type { Route } from "./+types/friend-search";
import "~/styles/friends.css";
import { ErrorSummary, FieldError, pageTitle, SubmissionToken, summaryErrors, useSubmitOnce } from "~/components/forms";
import { getUser, requireUser } from "~/web/auth.server";
import { parseId } from "~/lib/request.server";
import { Photo } from "~/components/photo";
import { BlockButton } from "~/components/circles";
import { FriendSearchSchema } from "~/forms/friends";
import { SUBMISSION_FIELD } from "~/forms/submission";
import { pendingRequestTo } from "~/models/friend-lists.server";
import { sendFriendRequest } from "~/models/friendships.server";
import { refusalStatus } from "~/web/refusal.server";
import { searchPeople, type PersonHit } from "~/models/user-search.server";
import { displayName, fullName } from "~/lib/names";

// /friendships/new (docs/spec.md §2 "Friend search"): a GET form (Enter runs the search; the URL can be
// shared and works without JavaScript), results under "Search Results", each with its username and
// an "Add friend" POST form, or, instead of the button, where the searcher already stands with
// them ("You", "Friends", "Request sent", "Request received", "Request denied"). The action
// redirects back to the same search with `sent=<id>`, and the loader shows the success message
// only if that request really exists. With JavaScript the message clears after 3000 ms, together
// with the errors and the search box (docs/spec.md §8). A session that ended while the page was open gets
// the spec's "Failed to authenticate" with a Log In link, with and without JavaScript.

const NOT_FOUND_MESSAGE = "This user not found! Please try another name.";
const AUTH_FAILED = "Failed to authenticate. Please log in again.";
const SUCCESS_TIMEOUT_MS = 3000;

/** Set by the action when the session has ended: the loader then answers the page, not a redirect. */
const sessionEnded = createContext<boolean>(false);

/** Where the searcher stands with a hit, instead of the "Add friend" button. */
const RELATION_LABELS: Record<NonNullable<PersonHit["relation"]>, string> = {
  self: "You",
  friends: "Friends",
  sent: "Request sent",
  received: "Request received",
  denied: "Request denied",
};

export async function loader({ request, context }: Route.LoaderArgs) {
  // Without JavaScript the page is rendered again right after its action: when the action found the
  // session ended, that render shows the action's message (and a Log In link) instead of going to
  // the log-in page without a word. With JavaScript the page stays (see shouldRevalidate).
  const user = context.get(sessionEnded) ? await getUser(request) : await requireUser(request);
  const url = new URL(request.url);
  const q = url.searchParams.get("q");
  if (!user) return data({ q: q ?? "", result: undefined, hits: null, sent: null }, { status: 401 });
  let sent: string | null = null;
  const sentId = parseId(url.searchParams.get("sent") ?? undefined);
  if (sentId !== null) {
    const friend = await pendingRequestTo(user.id, sentId);
    if (friend) sent = `Friend request sent successfully to ${displayName(friend)}!`;
  }
  if (q === null) return { q: "", result: undefined, hits: null, sent };

  const submission = parseWithZod(url.searchParams, { schema: FriendSearchSchema });
  if (submission.status !== "success") {
    return data({ q, result: submission.reply(), hits: null, sent }, { status: 400 });
  }
  const found = (await searchPeople(user.id, submission.value.q)) ?? [];
  return {
    q,
    result: undefined,
    hits: found.map((h) => ({
      id: h.id,
      name: fullName(h),
      username: h.username,
      photo: h.photo,
      relation: h.relation,
    })),
    sent,
  };
}

type ActionData = { error: string; status: number };

export async function action({ request, context }: Route.ActionArgs) {
  // Not requireUser: a session that ended while the page was open gets the spec's message (with
  // JavaScript the page stays and says so; without, the loader renders the page with it).
  const user = await getUser(request);
  if (!user) {
    context.set(sessionEnded, true);
    return data<ActionData>({ error: AUTH_FAILED, status: 401 }, { status: 401 });
  }
  const form = await request.formData();
  if (form.get("intent") !== "add")
    return data<ActionData>({ error: "That request could not be handled.", status: 400 }, { status: 400 });
  // a repeat of the same form (a double click) answers the request it sent: the same redirect
  const result = await sendFriendRequest(user.id, form.get("friendId"), { token: form.get(SUBMISSION_FIELD) });
  if (!result.ok) {
    const status = refusalStatus(result);
    return data<ActionData>({ error: result.message ?? "", status }, { status });
  }
  const q = new URL(request.url).searchParams.get("q");
  const params = new URLSearchParams();
  if (q !== null) params.set("q", q);
  params.set("sent", String(result.friend.id));
  return redirect(`${href("/friendships/new")}?${params}`, 303);
}

/** After a 401 the page stays as it is (with its message) instead of reloading into the log-in page. */
export function shouldRevalidate({ actionStatus, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (actionStatus === 401) return false;
  return defaultShouldRevalidate;
}

export default function FriendSearchPage({ loaderData, actionData }: Route.ComponentProps) {
  const { q, hits, sent, result } = loaderData;
  const location = useLocation();
  const navigate = useNavigate();
  const inputRef = useRef<HTMLInputElement>(null);
  const [form, fields] = useForm({
    id: "friend-search",
    lastResult: result,
    defaultValue: { q },
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: FriendSearchSchema }),
  });
  const errors = summaryErrors(fields as never, ["q"], form.errors, form.id);
  const addError = actionData?.error ?? null;
  const searchAction = `${href("/friendships/new")}${q ? `?${new URLSearchParams({ q })}` : ""}`;

  // docs/spec.md §8: the success message clears after 3000 ms, and with it the errors and the search box
  useEffect(() => {
    if (!sent) return;
    const timer = window.setTimeout(() => {
      if (inputRef.current) inputRef.current.value = "";
      navigate(searchAction, { replace: true, preventScrollReset: true });
    }, SUCCESS_TIMEOUT_MS);
    return () => window.clearTimeout(timer);
  }, [sent, location.key, navigate, searchAction]);

  const inputProps = getInputProps(fields.q, { type: "search" });

  return (
    <div className="page friend-search-page">
      <title>{pageTitle(q ? `Search results for “${q}”` : "Add A New Friend", errors.length > 0)}</title>
      <h1>Add A New Friend</h1>
      <ErrorSummary errors={errors} formId={form.id} />
      <Form method="get" action="/friendships/new" {...getFormProps(form)} className="friend-search-form" role="search">
        <div className={"field" + (fields.q.errors?.length ? " field--error" : "")}>
          <label htmlFor={fields.q.id}>Find a friend by name</label>
          <FieldError id={fields.q.errorId} errors={fields.q.errors} />
          <div className="friend-search-form__row">
            <input
              {...inputProps}
              key={inputProps.key}
              ref={inputRef}
              placeholder="Search for a user by first name or last name"
              autoComplete="off"
              spellCheck={false}
            />
            <button type="submit" className="button button--primary">
              Search
            </button>
          </div>
        </div>
      </Form>

      <div className="friend-search-messages">
        {/* always present, so the message is announced when it appears */}
        <div role="status">{sent ? <p className="notice">{sent}</p> : null}</div>
        {addError ? (
          <div className="notice notice--error" role="alert">
            <p>{addError}</p>
            {actionData?.status === 401 ? (
              <p>
                <Link to={`${href("/login")}?redirectTo=${encodeURIComponent(location.pathname + location.search)}`}>
                  Log In
                </Link>
              </p>
            ) : null}
          </div>
        ) : null}
      </div>

      {hits ? (
        <section aria-labelledby="search-results" className="friends-section">
          <h2 id="search-results">Search Results</h2>
          {hits.length === 0 ? (
            <p className="notice notice--error">{NOT_FOUND_MESSAGE}</p>
          ) : (
            <ul className="friend-list">
              {hits.map((h) => (
                <li key={h.id} className="card friend">
                  <div className="friend-who">
                    <Photo photo={h.photo} alt={h.name} decorative sizes="48px" className="friend-who__photo" />
                    <div>
                      <span className="friend-who__username">{h.name}</span>
                      <span className="friend-who__name">
                        <span className="visually-hidden">Username: </span>
                        {h.username}
                      </span>
                    </div>
                  </div>
                  {h.relation ? (
                    <Relation relation={h.relation} name={h.name} />
                  ) : (
                    <AddFriend hit={h} action={searchAction} />
                  )}
                  {h.relation !== "self" ? <BlockButton userId={h.id} who={h.name} /> : null}
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : null}
    </div>
  );
}

type Hit = { id: number; name: string };

/** Where the searcher stands with this person (no button: a request would only be refused). */
function Relation({ relation, name }: { relation: keyof typeof RELATION_LABELS; name: string }) {
  const label = RELATION_LABELS[relation];
  if (relation === "received") {
    // answered on the Friends page (Accept or Deny)
    return (
      <Link to="/current/friends" className="friend-status friend-status--state">
        {label}
        <span className="visually-hidden"> from {name}: answer it on the Friends page</span>
      </Link>
    );
  }
  return <span className="friend-status friend-status--state">{label}</span>;
}

/** "Add friend": one request per form, even on a double click (a one-time token, and with JavaScript a guard). */
function AddFriend({ hit, action }: { hit: Hit; action: string }) {
  const navigation = useNavigation();
  const once = useSubmitOnce(navigation.state !== "idle");
  const adding = navigation.state !== "idle" && navigation.formData?.get("friendId") === `${hit.id}`;
  return (
    <Form method="post" action={action} preventScrollReset {...once()}>
      <input type="hidden" name="intent" value="add" />
      <input type="hidden" name="friendId" value={hit.id} />
      <SubmissionToken />
      <button type="submit" className="button button--small button--secondary" aria-disabled={adding || undefined}>
        {adding ? "Sending…" : "Add friend"}
        <span className="visually-hidden"> ({hit.name})</span>
      </button>
    </Form>
  );
}
