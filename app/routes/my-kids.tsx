import { data, Link, redirect, useLocation, href } from "react-router";
import type { Route } from "./+types/my-kids";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { ageText, formatCalendarDate } from "~/lib/dates";
import { parseId } from "~/lib/request.server";
import { type Kid, listKidsOf, listKidsSeenBy, removeKid } from "~/models/kids.server";
import { today } from "~/lib/dates.server";
import { OWNER_ONLY, pageRefusal } from "~/web/refusal.server";
import { Photo } from "~/components/photo";
import { ConfirmDialog } from "~/components/modal";
import { confirmStepKeepsData, KidAge, withoutConfirm } from "~/components/kid-views";
import { latestMomentOfEach, listFeed } from "~/models/feed.server";
import { feedEntryView } from "~/web/feed.server";
import { FeedEntry } from "~/components/feed";
import { EmptyState } from "~/components/empty-state";
import { FORGET_KEPT_PAGES } from "~/web/conditional.server";

/** How many of the newest visible moments My Kids shows above the kids. */
const NEWS_SIZE = 3;

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const kids = await listKidsOf(user.id);
  // someone without kids of their own (a relative) sees the kids of the families they follow
  // instead of "No kids found" (docs/decisions/0059-the-circle-a-relationship-implies.md)
  const seen = kids.length ? [] : await listKidsSeenBy(user.id);
  const latest = await latestMomentOfEach(
    user.id,
    seen.map((k) => k.id),
  );
  const news = await listFeed(user.id, { limit: NEWS_SIZE });
  const now = today();
  const card = (k: Kid) => ({
    id: k.id,
    name: k.name,
    photo: k.photo,
    birthDate: k.birth_date,
    born: formatCalendarDate(k.birth_date),
    age: ageText(k.birth_date, now),
  });
  return {
    news: news.moments.map((m) => feedEntryView(m, { since: null })),
    seen: seen.map((k) => {
      const m = latest.get(k.id);
      return { ...card(k), latest: m ? { id: m.id, title: m.title, date: formatCalendarDate(m.taken_on) } : null };
    }),
    kids: kids.map((k) => ({
      ...card(k),
      // a kid the user co-parents (docs/spec.md §6): only its owner removes it
      coParented: k.user_id !== user.id,
    })),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  const form = await request.formData();
  if (form.get("intent") !== "remove-kid") throw data("That request could not be handled.", { status: 400 });
  const kidId = parseId(String(form.get("kidId") ?? ""));
  if (!kidId) throw data("Not found", { status: 404 });
  const removed = await removeKid(user.id, kidId);
  if (!removed.ok) throw pageRefusal(removed, { forbidden: OWNER_ONLY });
  return redirect("/my-kids-list", { headers: FORGET_KEPT_PAGES });
}

export const shouldRevalidate = confirmStepKeepsData;

type KidCardData = {
  id: number;
  name: string;
  photo: Parameters<typeof Photo>[0]["photo"];
  birthDate: string;
  born: string;
  age: string;
};

/** A kid's picture and name (to its moments) and age: the head of every card of My Kids. */
function KidCardHead({ kid, priority }: { kid: KidCardData; priority: boolean }) {
  return (
    <>
      <Link to={href("/kids/:kidId/dailyLogs", { kidId: String(kid.id) })} className="kid-card__link">
        <Photo
          photo={kid.photo}
          alt={kid.name}
          decorative
          icon="child"
          sizes="(max-width: 40rem) 100vw, 320px"
          priority={priority}
          className="kid-card__photo"
        />
        <span className="kid-card__name">{kid.name}</span>
      </Link>
      <KidAge id={`kid-${kid.id}-age`} age={kid.age} born={kid.born} birthDate={kid.birthDate} />
    </>
  );
}

/** Someone without kids of their own who sees other families' kids: those kids, to their moments. */
function SeenKids({
  seen,
}: {
  seen: (KidCardData & { latest: { id: number; title: string; date: string } | null })[];
}) {
  return (
    <section aria-labelledby="seen-kids-heading">
      <h2 id="seen-kids-heading">Kids you see</h2>
      <ul className="kid-grid">
        {seen.map((kid, i) => (
          <li key={kid.id} className="kid-card">
            <KidCardHead kid={kid} priority={i < 4} />
            {kid.latest ? (
              <p className="kid-card__latest">
                Latest:{" "}
                <Link to={href("/dailyLogs/:momentId", { momentId: String(kid.latest.id) })}>{kid.latest.title}</Link>,{" "}
                {kid.latest.date}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

export default function MyKids({ loaderData }: Route.ComponentProps) {
  const { kids, news, seen } = loaderData;
  const relative = kids.length === 0 && seen.length > 0;
  const location = useLocation();
  const params = new URLSearchParams(location.search);
  const confirmId = params.get("confirm") === "remove-kid" ? Number(params.get("kidId")) : null;
  const confirmKid = confirmId ? kids.find((k) => k.id === confirmId && !k.coParented) : undefined;
  const here = location.pathname + withoutConfirm(location.search);
  return (
    <div className="page kids-page">
      <title>My Kids – Sweet Moments</title>
      <h1>My Kids</h1>
      {news.length > 0 ? (
        <section className="feed-news" aria-labelledby="news-heading">
          <h2 id="news-heading">Family news</h2>
          <ul className="feed-list">
            {news.map((e) => (
              <li key={e.id}>
                <FeedEntry entry={e} headingLevel={3} returnTo={here} />
              </li>
            ))}
          </ul>
          <p>
            <Link to="/feed" className="button button--secondary">
              See everything new
            </Link>
          </p>
        </section>
      ) : null}
      <p className="button-row kids-page__actions">
        <Link to="/current/friends" className="button button--secondary">
          Friends
        </Link>
        <Link to="/kids/add-new" className={relative ? "button button--secondary" : "button button--primary"}>
          {relative ? "Add your own kid" : "Add Kid"}
        </Link>
      </p>
      {relative ? (
        <SeenKids seen={seen} />
      ) : kids.length === 0 ? (
        <EmptyState art="kids" text="No kids found. Please add your kid.">
          <Link to="/kids/add-new" className="button button--primary">
            Add your first kid
          </Link>
          <Link to="/settings/import" className="button button--secondary">
            Move in from another server
          </Link>
        </EmptyState>
      ) : (
        <ul className="kid-grid">
          {kids.map((kid, i) => (
            <li key={kid.id} className="kid-card">
              <KidCardHead kid={kid} priority={i < 4} />
              <div className="button-row kid-card__actions">
                <Link
                  to={href("/kids/:kidId/update", { kidId: String(kid.id) })}
                  className="button button--secondary button--small"
                >
                  Update<span className="visually-hidden"> {kid.name}</span>
                </Link>
                {kid.coParented ? (
                  <span className="field-hint">Co-parent</span>
                ) : (
                  <Link
                    to={`?confirm=remove-kid&kidId=${kid.id}`}
                    preventScrollReset
                    className="button button--danger button--small"
                  >
                    Remove<span className="visually-hidden"> {kid.name}</span>
                  </Link>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {confirmKid ? (
        <ConfirmDialog
          title="Confirm Remove"
          question="Are you sure you want to remove this kid from your kids list?"
          yesLabel="Yes (Remove Kid)"
          noLabel="No (Keep Kid)"
          closeTo={here}
          action="/my-kids-list"
          intent="remove-kid"
          hidden={{ kidId: String(confirmKid.id) }}
        />
      ) : null}
    </div>
  );
}
