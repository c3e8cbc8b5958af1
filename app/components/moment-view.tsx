import { Link, href } from "react-router";
import type { AltPhoto } from "~/images/photo";
import { ListLink } from "./list-link";
import { MomentPhotos } from "./moment-photos-view";
import { MomentClips } from "./moment-clips";
import type { Clip } from "~/video/clip";

// How a moment's story shows on the pages (docs/decisions/0028-*): its date and age, its milestone
// badge, the milestones and timeline lists, the links between the views. The forms' story fields
// are in app/components/moment-story.tsx; kept apart so the pages that only show moments load no
// form code (docs/decisions/0035-slow-networks.md). Styles: app/styles/kids.css.

/** A moment's date as pages show it: "14 June 2024 · Elsa was 2 years, 3 months". */
export type MomentDateView = { takenOn: string; date: string; age: string };

export function MomentDate({ view, kidName }: { view: MomentDateView; kidName?: string }) {
  return (
    <p className="moment__date">
      {kidName ? <>{kidName} · </> : null}
      <time dateTime={view.takenOn}>{view.date}</time>
      {view.age ? ` · ${view.age}` : null}
    </p>
  );
}

/** The milestone badge ("Milestone: First steps"), or nothing. */
export function MilestoneBadge({ milestone }: { milestone: string | null }) {
  if (!milestone) return null;
  return (
    <p className="milestone-badge">
      <span className="visually-hidden">Milestone: </span>
      <span aria-hidden="true">★ </span>
      {milestone}
    </p>
  );
}

/** What a list of moments shows of each (the feed, My Kids' news, milestones, the timeline). */
export type MomentSummaryView = {
  id: number;
  title: string;
  content: string;
  photos: AltPhoto[];
  clips?: Clip[];
  milestone: string | null;
  date: MomentDateView;
};

/**
 * A moment's title (a link to its page), milestone badge, date and age, photos and text: the part
 * every list of moments shares (the feed's entries, StoryMoment below).
 */
export function MomentSummary({
  moment,
  titleId,
  heading: H = "h3",
  priority = false,
}: {
  moment: MomentSummaryView;
  titleId: string;
  heading?: "h2" | "h3";
  priority?: boolean;
}) {
  return (
    <>
      <H id={titleId} className="moment__title">
        <ListLink to={href("/dailyLogs/:momentId", { momentId: String(moment.id) })}>{moment.title}</ListLink>
      </H>
      <MilestoneBadge milestone={moment.milestone} />
      <MomentDate view={moment.date} />
      <MomentPhotos
        photos={moment.photos}
        title={moment.title}
        sizes="(max-width: 42rem) 100vw, 640px"
        priority={priority}
        overlay={
          <ListLink
            to={href("/dailyLogs/:momentId", { momentId: String(moment.id) })}
            tabIndex={-1}
            aria-hidden="true"
            aria-label={moment.title}
            className="moment__photo-link"
          />
        }
      />
      <MomentClips clips={moment.clips ?? []} />
      <p className="moment__content">{moment.content}</p>
    </>
  );
}

/** A moment in a kid's milestones or timeline: title (to the moment's page), badge, date and age, photo, text. */
export function StoryMoment({ moment, priority = false }: { moment: MomentSummaryView; priority?: boolean }) {
  return (
    <article id={`moment-${moment.id}`} className="moment card" aria-labelledby={`moment-${moment.id}-title`}>
      <MomentSummary moment={moment} titleId={`moment-${moment.id}-title`} priority={priority} />
    </article>
  );
}

/** A list of StoryMoments, the first one loaded eagerly. */
export function StoryMomentList({ moments }: { moments: Parameters<typeof StoryMoment>[0]["moment"][] }) {
  return (
    <ol className="moment-list">
      {moments.map((m, i) => (
        <li key={m.id}>
          <StoryMoment moment={m} priority={i === 0} />
        </li>
      ))}
    </ol>
  );
}

/** The kid page's links to the story views. */
export function StoryLinks({ kidId, current }: { kidId: number; current?: "milestones" | "timeline" | "moments" }) {
  const links = [
    { key: "moments", to: href("/kids/:kidId/dailyLogs", { kidId: String(kidId) }), label: "All moments" },
    { key: "milestones", to: href("/kids/:kidId/milestones", { kidId: String(kidId) }), label: "Milestones" },
    { key: "timeline", to: href("/kids/:kidId/timeline", { kidId: String(kidId) }), label: "Timeline by age" },
  ] as const;
  return (
    <nav aria-label="Views of the kid's moments" className="story-links">
      <ul>
        {links.map((l) => (
          <li key={l.key}>
            <Link to={l.to} aria-current={current === l.key ? "page" : undefined}>
              {l.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
