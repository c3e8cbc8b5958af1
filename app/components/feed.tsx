import { Link, href } from "react-router";
import type { FeedEntryView } from "~/web/feed.server";
import { Photo } from "./photo";
import { MomentSocial } from "./moment-social";
import { MomentSummary } from "./moment-view";

// One moment in the home feed and in My Kids' "news" (docs/decisions/0028-*): the kid's picture and
// name with the age on the moment's date, the date, the milestone badge, title, photo, text, and
// the same likes/comments block as a kid's page. Styles: app/styles/kids.css.

export function FeedEntry({
  entry,
  headingLevel = 2,
  returnTo,
  priority = false,
  note,
}: {
  entry: FeedEntryView;
  headingLevel?: 2 | 3;
  returnTo: string;
  priority?: boolean;
  /** A line above the entry, e.g. "2 years ago today". */
  note?: string;
}) {
  const titleId = `moment-${entry.id}-title${note ? "-otd" : ""}`;
  return (
    <article id={note ? undefined : `moment-${entry.id}`} className="moment card feed-entry" aria-labelledby={titleId}>
      {note ? <p className="feed-entry__note">{note}</p> : null}
      {entry.isNew ? <p className="feed-entry__new">New since your last visit</p> : null}
      <p className="feed-entry__kid">
        <Link to={href("/kids/:kidId/dailyLogs", { kidId: String(entry.kid.id) })} className="feed-entry__kid-link">
          <Photo
            photo={entry.kid.photo}
            alt={entry.kid.name}
            decorative
            icon="child"
            sizes="40px"
            className="feed-entry__kid-photo"
          />
          <span>{entry.kid.line}</span>
        </Link>
      </p>
      <MomentSummary moment={entry} titleId={titleId} heading={headingLevel === 2 ? "h2" : "h3"} priority={priority} />
      {entry.postedBy ? <p className="posted-by">Posted by {entry.postedBy}</p> : null}
      {entry.social ? <MomentSocial momentId={entry.id} social={entry.social} returnTo={returnTo} /> : null}
    </article>
  );
}
