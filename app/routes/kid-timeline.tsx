import { data, Link, useLocation } from "react-router";
import type { Route } from "./+types/kid-timeline";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { ageHeading, ageOfMonth, agePeriod, formatMonth, monthPeriod, type Period } from "~/lib/dates";
import { decodeCursor } from "~/models/moment-cursors.server";
import { momentsInPeriod, timelineMonths } from "~/models/story.server";
import { pageRefusal } from "~/web/refusal.server";
import { kidMomentView } from "~/web/feed.server";
import { StoryLinks, StoryMomentList } from "~/components/moment-view";
import { EmptyState, FirstMomentLink } from "~/components/empty-state";

// GET /kids/:kidId/timeline[?age=N | ?month=YYYY-MM][&before=cursor]: the kid's moments by year
// of age and by month. The index is plain links; a period pages with the kid pages'
// cursor, 20 at a time. Works without JavaScript.

const PAGE_SIZE = 20;
const BAD_PERIOD = "That part of the timeline does not exist.";

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  const search = new URL(request.url).searchParams;
  const index = await timelineMonths(user.id, kidId);
  if (!index.ok) throw pageRefusal(index);
  const { kid } = index;

  const ageParam = search.get("age");
  const monthParam = search.get("month");
  const beforeParam = search.get("before");
  let period: Period | null = null;
  let periodLabel = "";
  if (monthParam !== null) {
    period = monthPeriod(monthParam);
    periodLabel = formatMonth(monthParam);
  } else if (ageParam !== null) {
    period = /^-?\d{1,3}$/.test(ageParam) ? agePeriod(kid.birth_date, Number(ageParam)) : null;
    periodLabel = ageHeading(Number(ageParam));
  }
  if ((monthParam !== null || ageParam !== null) && !period) throw data(BAD_PERIOD, { status: 400 });
  const before = beforeParam ? decodeCursor(beforeParam) : null;
  if (beforeParam && !before) throw data("That page of moments does not exist.", { status: 400 });

  const ages = new Map<number, { month: string; label: string; count: number }[]>();
  for (const { month, count } of index.months) {
    const age = ageOfMonth(kid.birth_date, month);
    if (!ages.has(age)) ages.set(age, []);
    ages.get(age)!.push({ month, label: formatMonth(month), count });
  }
  const page = period ? await momentsInPeriod(user.id, kid.id, period, { limit: PAGE_SIZE, before }) : null;
  return {
    kid: { id: kid.id, name: kid.name },
    canChange: index.isParent,
    index: [...ages.entries()].map(([age, months]) => ({ age, heading: ageHeading(age), months })),
    periodLabel,
    periodQuery:
      monthParam !== null
        ? `month=${encodeURIComponent(monthParam)}`
        : ageParam !== null
          ? `age=${encodeURIComponent(ageParam)}`
          : "",
    moments: (page?.moments ?? []).map((m) => kidMomentView(m, kid)),
    next: page?.next ?? null,
    isOlderPage: Boolean(before),
  };
}

export default function KidTimeline({ loaderData }: Route.ComponentProps) {
  const { kid, canChange, index, periodLabel, periodQuery, moments, next, isOlderPage } = loaderData;
  const location = useLocation();
  const heading = `${kid.name}'s Timeline`;
  return (
    <div className="page kid-moments">
      <title>{`${heading}${periodLabel ? ` – ${periodLabel}` : ""} – Sweet Moments`}</title>
      <h1>{heading}</h1>
      <StoryLinks kidId={kid.id} current="timeline" />
      {index.length === 0 ? (
        <EmptyState art="moments" text="No Moments found">
          {canChange ? <FirstMomentLink kid={kid} /> : null}
        </EmptyState>
      ) : (
        <nav aria-label="Ages and months">
          <ul className="timeline-index">
            {index.map((a) => (
              <li key={a.age}>
                <h2>
                  <Link to={`${location.pathname}?age=${a.age}`}>{a.heading}</Link>
                </h2>
                <ul>
                  {a.months.map((m) => (
                    <li key={m.month}>
                      <Link to={`${location.pathname}?month=${m.month}`}>
                        {m.label}{" "}
                        <span className="visually-hidden">
                          ({m.count} {m.count === 1 ? "moment" : "moments"})
                        </span>
                      </Link>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {periodLabel ? (
        <section aria-labelledby="period-heading">
          <h2 id="period-heading">
            {`Moments of ${periodLabel}`}
            {isOlderPage ? " (older)" : ""}
          </h2>
          {isOlderPage ? (
            <p>
              <Link to={`${location.pathname}?${periodQuery}`}>Back to the newest of {periodLabel}</Link>
            </p>
          ) : null}
          {moments.length === 0 ? (
            <p className="empty">No moments in {periodLabel}.</p>
          ) : (
            <StoryMomentList moments={moments} />
          )}
          {next ? (
            <p className="older-link">
              <Link
                to={`${location.pathname}?${periodQuery}&before=${encodeURIComponent(next)}`}
                className="button button--secondary"
              >
                Older moments
              </Link>
            </p>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
