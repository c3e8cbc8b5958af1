import { data, Link, useLocation, href } from "react-router";
import type { Route } from "./+types/feed";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { isVisitFromElsewhere } from "~/web/security.server";
import { today } from "~/lib/dates.server";
import { decodeCursor } from "~/models/moment-cursors.server";
import { momentStamps } from "~/models/moments.server";
import { conditionalPage } from "~/web/conditional.server";
import { listFeed, onThisDay, recordFeedVisit } from "~/models/feed.server";
import { loadSocial } from "~/models/social.server";
import { posterNames } from "~/models/co-parents.server";
import { feedEntryView } from "~/web/feed.server";
import { FeedEntry } from "~/components/feed";
import { EmptyArt } from "~/components/empty-state";
import { parseId } from "~/lib/request.server";
import { whatViewerSeesOf } from "~/models/circles.server";

// GET /feed: the home feed (docs/spec.md "Feed"). Thin: parse → feed model → render. `?welcome={id}`:
// where joining by that user's invitation lands, which says what the newcomer sees of their moments.

const PAGE_SIZE = 20;

// conditional (docs/decisions/0034-conditional-pages.md): an unchanged feed is a 304, no render
const conditional = conditionalPage(async ({ request }) => {
  const user = await requireUser(request);
  const url = new URL(request.url);
  const beforeParam = url.searchParams.get("before");
  // just joined by an invitation (app/routes/invite.tsx): what they see of the inviter's moments
  const welcomeId = parseId(url.searchParams.get("welcome") ?? undefined);
  const welcome = welcomeId === null ? null : await whatViewerSeesOf(user.id, welcomeId);
  const before = beforeParam ? decodeCursor(beforeParam) : null;
  if (beforeParam && !before) throw data("That page of moments does not exist.", { status: 400 });

  // a visit another site sent (a link, an image) reads the last visit but does not move it
  const since = await recordFeedVisit(user.id, undefined, { record: !isVisitFromElsewhere(request) });
  const now = today();
  const otd = before ? [] : await onThisDay(user.id, now);
  const page = await listFeed(user.id, { limit: PAGE_SIZE, before });
  const social = await loadSocial(
    user,
    page.moments.map((m) => m.id),
    { commentsPerMoment: 3 },
  );
  const posters = await posterNames([...page.moments, ...otd].map((m) => m.posted_by));
  const view = {
    entries: page.moments.map((m) => feedEntryView(m, { since, social: social[m.id], posters })),
    onThisDay: otd.map((m) => ({ ...feedEntryView(m, { since: null, posters }), yearsAgo: m.yearsAgo })),
    next: page.next,
    isOlderPage: Boolean(before),
    newCount: page.moments.filter((m) => since !== null && m.created_at > since).length,
    welcome,
  };
  return { view, stamps: [momentStamps(page.moments), momentStamps(otd)] };
});
export const middleware = [conditional.middleware];
export const loader = conditional.loader;

const yearsAgoText = (n: number) => `${n} ${n === 1 ? "year" : "years"} ago today`;

export default function Feed({ loaderData }: Route.ComponentProps) {
  const { entries, onThisDay, next, isOlderPage, newCount, welcome } = loaderData;
  const location = useLocation();
  const here = location.pathname + location.search;
  return (
    <div className="page feed-page">
      <title>{`Feed${isOlderPage ? " (older)" : ""} – Sweet Moments`}</title>
      <h1>Feed</h1>
      {welcome ? (
        <p className="notice feed-welcome" role="status">
          {`Welcome! You and ${welcome.name} are now friends. You see the moments ${welcome.name} shares with ${welcome.sees}.`}
        </p>
      ) : null}
      {isOlderPage ? (
        <p>
          <Link to="/feed">Back to the newest moments</Link>
        </p>
      ) : null}
      {onThisDay.length > 0 ? (
        <section className="on-this-day" aria-labelledby="on-this-day-heading">
          <h2 id="on-this-day-heading">On this day</h2>
          <ul className="otd-list">
            {onThisDay.map((m) => (
              <li key={m.id}>
                <FeedEntry entry={m} headingLevel={3} returnTo={here} note={yearsAgoText(m.yearsAgo)} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {entries.length === 0 && !isOlderPage ? (
        <div className="feed-empty card">
          <EmptyArt art="feed" />
          <h2>Nothing here yet</h2>
          <p>
            {welcome
              ? `${welcome.name} has not shared a moment with you yet. They will show here, newest first.`
              : "Moments of your kids and of your friends' kids will show here, newest first."}
          </p>
          <ul>
            <li>
              <Link to="/kids/add-new">Add your kid</Link> and post their first moment.
            </li>
            <li>
              <Link to="/friendships/new">Find friends</Link> to see their family's moments.
            </li>
          </ul>
        </div>
      ) : (
        <section aria-labelledby="feed-heading">
          <h2 id="feed-heading" className="visually-hidden">
            Moments
          </h2>
          {newCount > 0 ? (
            <p className="feed-summary">{`${newCount} new since your last visit on this page.`}</p>
          ) : null}
          <ol className="feed-list">
            {entries.map((e, i) => (
              <li key={e.id}>
                <FeedEntry entry={e} returnTo={here} priority={i === 0 && onThisDay.length === 0} />
              </li>
            ))}
          </ol>
        </section>
      )}
      {next ? (
        <p className="older-link">
          <Link to={`${href("/feed")}?before=${encodeURIComponent(next)}`} className="button button--secondary">
            Older moments
          </Link>
        </p>
      ) : null}
    </div>
  );
}
