import type { ReactNode } from "react";
import { Link, href } from "react-router";

// A friendly empty list (docs/design.md "Pages that welcome"): a small illustration drawn inline
// (no request, follows the theme's colours through CSS custom properties, decorative: hidden from
// screen readers), the sentence the page always said, and the one next action. Styles: app/app.css
// (section "empty states").

type Art = "kids" | "moments" | "friends" | "feed";

export function EmptyState({ art, text, children }: { art: Art; text: ReactNode; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <EmptyArt art={art} />
      <p className="empty">{text}</p>
      {children ? <div className="empty-state__action">{children}</div> : null}
    </div>
  );
}

/** The next action of a kid's empty lists (its moments, its timeline) for who may post: the Add moment form. */
export function FirstMomentLink({ kid }: { kid: { id: number; name: string } }) {
  return (
    <Link to={href("/kids/:kidId/dailyLogs/new", { kidId: String(kid.id) })} className="button button--secondary">
      Post {kid.name}'s first moment
    </Link>
  );
}

/** 96-px drawings in the theme's colours: a child, a photo, two friends, a heart on a photo. */
export function EmptyArt({ art }: { art: Art }) {
  return (
    <svg className="empty-state__art" viewBox="0 0 96 96" width="96" height="96" aria-hidden="true" focusable="false">
      <circle cx="48" cy="48" r="46" className="art-sky" />
      {art === "kids" ? (
        <g>
          <circle cx="48" cy="36" r="14" className="art-face" />
          <path d="M24 84c2-16 12-26 24-26s22 10 24 26z" className="art-hill-2" />
          <circle cx="43" cy="35" r="2" className="art-ink" />
          <circle cx="53" cy="35" r="2" className="art-ink" />
          <path d="M43 41q5 4 10 0" className="art-line" />
        </g>
      ) : art === "friends" ? (
        <g>
          <circle cx="36" cy="38" r="11" className="art-face" />
          <circle cx="60" cy="38" r="11" className="art-face" />
          <path d="M16 80c1-14 9-22 20-22s19 8 20 22z" className="art-hill" />
          <path d="M40 80c1-14 9-22 20-22s19 8 20 22z" className="art-hill-2" />
        </g>
      ) : (
        <g>
          <rect x="20" y="24" width="56" height="46" rx="6" className="art-card" />
          <circle cx="60" cy="38" r="6" className="art-sun" />
          <path d="M24 66l16-18 12 12 8-8 12 14z" className="art-hill-2" />
          {art === "feed" ? (
            <path
              d="M48 86s-12-7-12-15c0-4 3-7 6-7 3 0 5 2 6 4 1-2 3-4 6-4 3 0 6 3 6 7 0 8-12 15-12 15z"
              className="art-heart"
            />
          ) : null}
        </g>
      )}
    </svg>
  );
}
