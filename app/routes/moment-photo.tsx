import { useEffect, useRef, type PointerEvent } from "react";
import { Link, useNavigate } from "react-router";
import type { Route } from "./+types/moment-photo";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { momentDateView } from "~/lib/dates";
import { photoNeighbours, viewMoment } from "~/models/moments.server";
import { pageRefusal } from "~/web/refusal.server";
import { notFound } from "~/models/refusal";
import { altPhotos } from "~/images/photo";
import { Photo } from "~/components/photo";
import { MomentDate } from "~/components/moment-view";

// The photo viewer (issue #20 point 3): one photo of a moment at /dailyLogs/{id}/photos/{n} (n from
// 1), large on a dark backdrop, with the moment's title, date and the kid's age, and previous/next
// links within the moment and, past its first and last photo, to the kid's previous and next
// moments that the viewer may see (photoNeighbours). A real page that works without JavaScript; seen exactly by those who
// see the moment (viewMoment asks the access module), its photo by the image route's same rule.

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const view = await viewMoment(user.id, pageId(params.dailyLogId));
  if (!view.ok) throw pageRefusal(view);
  const { moment, kid } = view;
  const n = pageId(params.n); // a whole number from 1, or the not-found page
  const photo = moment.photos[n - 1];
  if (!photo) throw pageRefusal(notFound("Photo not found"));
  const count = moment.photos.length;
  // past the first or last photo: the kid's neighbouring moments (two queries, only then)
  const around = n === 1 || n === count ? await photoNeighbours(user.id, moment) : { previous: null, next: null };
  const prev = n > 1 ? { n: n - 1, momentId: moment.id } : around.previous && { n: around.previous.photoCount, momentId: around.previous.momentId };
  const next = n < count ? { n: n + 1, momentId: moment.id } : around.next && { n: 1, momentId: around.next.momentId };
  return {
    moment: { id: moment.id, title: moment.title, date: momentDateView(moment.taken_on, kid.name, kid.birth_date) },
    kid: { id: kid.id, name: kid.name },
    photo: altPhotos([photo])[0]!,
    n,
    count,
    prev: prev && { to: `/dailyLogs/${prev.momentId}/photos/${prev.n}`, label: prev.momentId === moment.id ? "Previous photo" : "Previous moment" },
    next: next && { to: `/dailyLogs/${next.momentId}/photos/${next.n}`, label: next.momentId === moment.id ? "Next photo" : "Next moment" },
  };
}

/** A horizontal swipe: at least this many CSS pixels across, and more across than up or down. */
const SWIPE_PX = 50;

/** Keys that are not for the viewer: typed into a field, or with a modifier (the browser's own). */
function keyIsNotOurs(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  return e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || Boolean(t?.closest("input, textarea, select, [contenteditable]"));
}

export default function MomentPhotoViewer({ loaderData }: Route.ComponentProps) {
  const { moment, kid, photo, n, count, prev, next } = loaderData;
  const navigate = useNavigate();
  const heading = useRef<HTMLHeadingElement>(null);
  const swipe = useRef<{ x: number; y: number; id: number } | null>(null);
  const back = `/dailyLogs/${moment.id}`;

  // With JavaScript (the links stay the viewer without it): Left/Right follow previous/next,
  // Escape goes back to the moment; client navigations, no reload.
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (keyIsNotOurs(e)) return;
      const to = e.key === "ArrowLeft" ? prev?.to : e.key === "ArrowRight" ? next?.to : e.key === "Escape" ? back : undefined;
      if (!to) return;
      e.preventDefault();
      void navigate(to, { preventScrollReset: true });
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [navigate, prev?.to, next?.to, back]);

  // After a step to another photo, focus stays on the link that was used when it is still there;
  // otherwise (a key, a swipe, a link that went away) it goes to the heading, not lost on <body>.
  // "Photo n of N" is a status: screen readers announce the new photo.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) heading.current?.focus();
  }, [moment.id, n]);

  function onPointerDown(e: PointerEvent) {
    if (e.pointerType === "mouse" || !e.isPrimary) return;
    swipe.current = { x: e.clientX, y: e.clientY, id: e.pointerId };
  }
  function onPointerUp(e: PointerEvent) {
    const start = swipe.current;
    swipe.current = null;
    if (!start || start.id !== e.pointerId) return;
    const dx = e.clientX - start.x;
    const dy = e.clientY - start.y;
    if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) <= Math.abs(dy)) return;
    // a swipe to the left brings the next photo in from the right
    const to = dx < 0 ? next?.to : prev?.to;
    if (to) void navigate(to, { preventScrollReset: true });
  }
  const alt = photo.alt && photo.alt !== moment.title ? photo.alt : `Photo: ${moment.title}`;
  return (
    <div className="photo-viewer">
      <title>{`Photo ${n} of ${count} – ${moment.title} – Sweet Moments`}</title>
      <h1 className="photo-viewer__title" ref={heading} tabIndex={-1}>{moment.title}</h1>
      <MomentDate view={moment.date} kidName={kid.name} />
      <p className="photo-viewer__count" role="status">
        Photo {n} of {count}
      </p>
      <figure
        className="photo-viewer__figure"
        onPointerDown={onPointerDown}
        onPointerUp={onPointerUp}
        onPointerCancel={() => {
          swipe.current = null;
        }}
      >
        <Photo photo={photo} alt={alt} sizes="(max-width: 80rem) 100vw, 1280px" priority className="photo-viewer__img" />
      </figure>
      <nav aria-label="Photos" className="photo-viewer__nav">
        {prev ? (
          <Link to={prev.to} rel="prev" className="button button--secondary">
            {prev.label}
          </Link>
        ) : null}
        <Link to={back} className="button button--secondary">
          Back to the moment
        </Link>
        {next ? (
          <Link to={next.to} rel="next" className="button button--secondary">
            {next.label}
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
