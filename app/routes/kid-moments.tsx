import { data, Link, useLocation, href } from "react-router";
import type { Route } from "./+types/kid-moments";
import "~/styles/kids.css";
import { AudienceLabel } from "~/components/audience";
import { momentAudienceFor } from "~/models/moments.server";
import { posterNames } from "~/models/co-parents.server";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { ageText, formatCalendarDate } from "~/lib/dates";
import { today } from "~/lib/dates.server";
import { pageRefusal } from "~/web/refusal.server";
import { conditionalPage } from "~/web/conditional.server";
import { momentStamps } from "~/models/moments.server";
import { kidMomentView } from "~/web/feed.server";
import { deleteMomentForm } from "~/web/forms.server";
import { decodeCursor } from "~/models/moment-cursors.server";
import { listMoments } from "~/models/moments.server";
import { loadSocial } from "~/models/social.server";
import { Photo } from "~/components/photo";
import { MomentPhotos } from "~/components/moment-photos-view";
import { MomentClips } from "~/components/moment-clips";
import { MomentSocial } from "~/components/moment-social";
import { ListLink } from "~/components/list-link";
import { MilestoneBadge, MomentDate, StoryLinks } from "~/components/moment-view";
import { confirmStepKeepsData, DeleteMomentDialog, KidAge, MomentManage, withoutConfirm } from "~/components/kid-views";
import { EmptyState, FirstMomentLink } from "~/components/empty-state";

const PAGE_SIZE = 20;

// conditional (docs/decisions/0034-conditional-pages.md): an unchanged page is a 304, no render
const page = conditionalPage(async ({ request, params }) => {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  const beforeParam = new URL(request.url).searchParams.get("before");
  const before = beforeParam ? decodeCursor(beforeParam) : null;
  if (beforeParam && !before) throw data("That page of moments does not exist.", { status: 400 });

  const page = await listMoments(user.id, kidId, { limit: PAGE_SIZE, before });
  if (!page.ok) throw pageRefusal(page);
  // list page: the newest few comments per moment; the moment's own page shows them all
  const social = await loadSocial(
    user,
    page.moments.map((m) => m.id),
    { commentsPerMoment: 3 },
  );
  const posters = await posterNames(page.moments.map((m) => m.posted_by));
  const { kid } = page;
  const view = {
    kid: {
      id: kid.id,
      name: kid.name,
      photo: kid.photo,
      birthDate: kid.birth_date,
      born: formatCalendarDate(kid.birth_date),
      age: ageText(kid.birth_date, today()),
    },
    canChange: page.isParent,
    moments: page.moments.map((m) => ({
      ...kidMomentView(m, kid),
      audience: momentAudienceFor(m, page.isParent),
      postedBy: m.posted_by === null ? null : (posters[m.posted_by] ?? null),
    })),
    social,
    next: page.next,
    isOlderPage: Boolean(before),
  };
  return { view, stamps: momentStamps(page.moments) };
});
export const middleware = [page.middleware];
export const loader = page.loader;

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  pageId(params.kidId);
  return deleteMomentForm(request, user.id);
}

export const shouldRevalidate = confirmStepKeepsData;

export default function KidMoments({ loaderData }: Route.ComponentProps) {
  const { kid, canChange, moments, social, next, isOlderPage } = loaderData;
  const location = useLocation();
  const params = new URLSearchParams(location.search);
  const here = location.pathname + withoutConfirm(location.search);
  const confirmId = params.get("confirm") === "delete-moment" ? Number(params.get("momentId")) : null;
  const confirmMoment = canChange && confirmId ? moments.find((m) => m.id === confirmId) : undefined;
  // the page's own query once; each moment's link only adds its id
  const deleteBase = new URLSearchParams(withoutConfirm(location.search));
  deleteBase.set("confirm", "delete-moment");
  const deleteTo = (id: number) => {
    deleteBase.set("momentId", String(id));
    return `${location.pathname}?${deleteBase}`;
  };
  const heading = `${kid.name}'s Moments`;
  return (
    <div className="page kid-moments">
      <title>{`${heading}${isOlderPage ? " (older)" : ""} – Sweet Moments`}</title>
      <section className="kid-header" aria-label={`About ${kid.name}`}>
        <Photo
          photo={kid.photo}
          alt={kid.name}
          decorative
          icon="child"
          sizes="96px"
          priority
          className="kid-header__photo"
        />
        <div className="kid-header__text">
          <p className="kid-header__name">{kid.name}</p>
          <KidAge id={`kid-${kid.id}-age`} age={kid.age} born={kid.born} birthDate={kid.birthDate} />
        </div>
        {canChange ? (
          <Link
            to={href("/kids/:kidId/dailyLogs/new", { kidId: String(kid.id) })}
            className="button button--primary kid-header__add"
          >
            Add Sweet Moment
          </Link>
        ) : null}
        {canChange ? (
          <Link
            to={href("/kids/:kidId/drafts/new", { kidId: String(kid.id) })}
            className="button button--secondary kid-header__add"
          >
            Add photos
          </Link>
        ) : null}
        {canChange ? (
          <Link
            to={href("/kids/:kidId/co-parents", { kidId: String(kid.id) })}
            className="button button--secondary kid-header__add"
          >
            Co-parents
          </Link>
        ) : null}
      </section>
      <h1>{heading}</h1>
      <StoryLinks kidId={kid.id} current="moments" />
      {isOlderPage ? (
        <p>
          <Link to={location.pathname}>Back to the newest moments</Link>
        </p>
      ) : null}
      {moments.length === 0 ? (
        <EmptyState art="moments" text="No Moments found">
          {canChange ? <FirstMomentLink kid={kid} /> : null}
        </EmptyState>
      ) : (
        <ol className="moment-list">
          {moments.map((m, i) => (
            <li key={m.id}>
              <article id={`moment-${m.id}`} className="moment card" aria-labelledby={`moment-${m.id}-title`}>
                {/* the photo opens the moment too: a link laid over it, out of the tab order and hidden from screen readers (the title is the same link; the photos keep their alt texts) */}
                <MomentPhotos
                  photos={m.photos}
                  title={m.title}
                  sizes="(max-width: 42rem) 100vw, 640px"
                  minWidth={640}
                  priority={i === 0}
                  timing={i === 0 ? "first-moment" : undefined}
                  overlay={
                    <ListLink
                      to={href("/dailyLogs/:momentId", { momentId: String(m.id) })}
                      tabIndex={-1}
                      aria-hidden="true"
                      aria-label={m.title}
                      className="moment__photo-link"
                    />
                  }
                />
                <h2
                  id={`moment-${m.id}-title`}
                  className="moment__title"
                  {...(i === 0 ? { elementtiming: "first-moment" } : {})}
                >
                  <ListLink to={href("/dailyLogs/:momentId", { momentId: String(m.id) })}>{m.title}</ListLink>
                </h2>
                <MilestoneBadge milestone={m.milestone} />
                <MomentDate view={m.date} />
                {m.audience ? <AudienceLabel audience={m.audience} /> : null}
                {m.postedBy ? <p className="posted-by">Posted by {m.postedBy}</p> : null}
                <MomentClips clips={m.clips} isParent={canChange} />
                <p className="moment__content">{m.content}</p>
                {canChange ? <MomentManage momentId={m.id} title={m.title} deleteTo={deleteTo(m.id)} /> : null}
                {social[m.id] ? <MomentSocial momentId={m.id} social={social[m.id]!} returnTo={here} /> : null}
              </article>
            </li>
          ))}
        </ol>
      )}
      {next ? (
        <p className="older-link">
          <Link to={`${location.pathname}?before=${encodeURIComponent(next)}`} className="button button--secondary">
            Older moments
          </Link>
        </p>
      ) : null}
      {confirmMoment ? (
        <DeleteMomentDialog momentId={confirmMoment.id} action={location.pathname} closeTo={here} />
      ) : null}
    </div>
  );
}
