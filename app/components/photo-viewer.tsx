import { useEffect, useLayoutEffect, useRef, type PointerEvent, type RefObject } from "react";
import { Link, useNavigate, href } from "react-router";
import type { AltPhoto } from "~/images/photo";
import type { Clip } from "~/video/clip";
import { Photo } from "./photo";
import { MomentClip } from "./moment-clips";
import { MomentDate } from "./moment-view";
import { PhotoDownloadLink } from "./photo-download";
import type { PhotoDownload } from "~/models/photo-downloads.server";

// The photo viewer (docs/decisions/0030-several-photos-per-moment.md): one item of a moment (a
// photo, or a clip after the photos: docs/decisions/0064-video-clips.md) large on a dark backdrop,
// its place among the moment's items, previous/next links (within the moment, then the kid's
// neighbouring moments). The same view is the page
// /dailyLogs/{id}/photos/{n} (app/routes/moment-photo.tsx) and, with JavaScript, a dialog over the
// moment's page (app/routes/moment.tsx) whose URL bar still shows that page's URL.

/** One step of previous/next: an item of this moment or of a neighbouring one. */
export type ViewerStep = { momentId: number; n: number; label: string };

/** What the viewer shows: a photo with its "Download original" (docs/decisions/0063-full-size-originals.md), or a clip. */
export type ViewerItem = { kind: "photo"; photo: AltPhoto; download: PhotoDownload } | { kind: "clip"; clip: Clip };

export type PhotoViewerData = {
  moment: { id: number; title: string; date: { takenOn: string; date: string; age: string } };
  kid: { id: number; name: string };
  item: ViewerItem;
  n: number;
  count: number;
  prev: ViewerStep | null;
  next: ViewerStep | null;
};

/** Where a step's link goes: a URL, or (the dialog) the router's URL shown as `mask` in the URL bar. */
export type ViewerTarget = { to: string; mask?: string };

/** The page of photo `n` of a moment. */
export const photoPage = (momentId: number, n: number) =>
  href("/dailyLogs/:momentId/photos/:n", { momentId: String(momentId), n: String(n) });

/** A horizontal swipe: at least this many CSS pixels across, and more across than up or down. */
const SWIPE_PX = 50;

/** Keys that are not for the viewer: typed into a field, for a clip's player (its seeking), or with a modifier (the browser's own). */
function keyIsNotOurs(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  return (
    e.defaultPrevented ||
    e.altKey ||
    e.ctrlKey ||
    e.metaKey ||
    e.shiftKey ||
    Boolean(t?.closest("input, textarea, select, video, [contenteditable]"))
  );
}

export function PhotoViewer({
  data,
  target = (momentId, n) => ({ to: photoPage(momentId, n) }),
  inDialog = false,
}: {
  data: PhotoViewerData;
  target?: (momentId: number, n: number) => ViewerTarget;
  /** In a dialog: its title is the moment's, Escape is the dialog's own (app/components/modal.tsx). */
  inDialog?: boolean;
}) {
  const { moment, kid, item, n, count } = data;
  const prev = data.prev && { ...target(data.prev.momentId, data.prev.n), label: data.prev.label };
  const next = data.next && { ...target(data.next.momentId, data.next.n), label: data.next.label };
  const navigate = useNavigate();
  const focusHome = useRef<HTMLElement>(null);
  const swipe = useRef<{ x: number; y: number; id: number } | null>(null);
  const back = href("/dailyLogs/:momentId", { momentId: String(moment.id) });

  function go(step: ViewerTarget | null | undefined) {
    if (step) void navigate(step.to, { mask: step.mask, preventScrollReset: true });
  }

  // With JavaScript (the links stay the viewer without it): Left/Right follow previous/next,
  // Escape goes back to the moment; client navigations, no reload. A layout effect: the listener of
  // the view just committed is in place before the browser paints it, so a key pressed as soon as
  // the new photo shows is not taken by the leaving view's listener.
  useLayoutEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (keyIsNotOurs(e)) return;
      // Mid-step (the URL bar already shows the next photo, this view not yet): a key would go from
      // the photo that is leaving. It waits for the view that matches the URL.
      if (window.location.pathname !== photoPage(moment.id, n)) return;
      const step =
        e.key === "ArrowLeft"
          ? prev
          : e.key === "ArrowRight"
            ? next
            : e.key === "Escape" && !inDialog
              ? { to: back }
              : null;
      if (!step) return;
      e.preventDefault();
      go(step);
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  // After a step to another photo, focus stays on the link that was used when it is still there;
  // otherwise (a key, a swipe, a link that went away) it goes to the heading (the dialog: the photo
  // count), not lost on <body>. "Photo n of N" is a status: screen readers announce the new photo.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) focusHome.current?.focus();
  }, [moment.id, n]);

  function onPointerDown(e: PointerEvent) {
    if (e.pointerType === "mouse" || !e.isPrimary) return;
    swipe.current = { x: e.clientX, y: e.clientY, id: e.pointerId };
  }
  function onPointerUp(e: PointerEvent) {
    const start = swipe.current;
    swipe.current = null;
    if (!start || start.id !== e.pointerId) return;
    if (window.location.pathname !== photoPage(moment.id, n)) return;
    const dx = e.clientX - start.x;
    const dy = e.clientY - start.y;
    if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) <= Math.abs(dy)) return;
    // a swipe to the left brings the next photo in from the right
    go(dx < 0 ? next : prev);
  }

  return (
    <div className="photo-viewer">
      {inDialog ? null : (
        <h1 className="photo-viewer__title" ref={focusHome as RefObject<HTMLHeadingElement>} tabIndex={-1}>
          {moment.title}
        </h1>
      )}
      <MomentDate view={moment.date} kidName={kid.name} />
      <p
        className="photo-viewer__count"
        role="status"
        ref={inDialog ? (focusHome as RefObject<HTMLParagraphElement>) : undefined}
        tabIndex={inDialog ? -1 : undefined}
      >
        {item.kind === "clip" ? "Video" : "Photo"} {n} of {count}
      </p>
      {item.kind === "photo" ? (
        <figure
          className="photo-viewer__figure"
          onPointerDown={onPointerDown}
          onPointerUp={onPointerUp}
          onPointerCancel={() => {
            swipe.current = null;
          }}
        >
          <Photo
            photo={item.photo}
            alt={item.photo.alt && item.photo.alt !== moment.title ? item.photo.alt : `Photo: ${moment.title}`}
            sizes="(max-width: 80rem) 100vw, 1280px"
            priority
            className="photo-viewer__img"
          />
        </figure>
      ) : (
        // no swipe over a clip: a finger across it is for its player's seek bar; the links and keys step on
        <div className="photo-viewer__figure photo-viewer__clip">
          <MomentClip key={item.clip.id} clip={item.clip} />
        </div>
      )}
      <nav aria-label="Photos" className="photo-viewer__nav">
        {prev ? (
          <Link to={prev.to} mask={prev.mask} preventScrollReset rel="prev" className="button button--secondary">
            {prev.label}
          </Link>
        ) : null}
        <Link to={back} className="button button--secondary">
          Back to the moment
        </Link>
        {next ? (
          <Link to={next.to} mask={next.mask} preventScrollReset rel="next" className="button button--secondary">
            {next.label}
          </Link>
        ) : null}
      </nav>
      {item.kind === "photo" ? (
        <p className="photo-viewer__download">
          <PhotoDownloadLink
            download={item.download}
            className="button button--secondary"
            smallSize={`${item.photo.width} × ${item.photo.height}`}
          />
        </p>
      ) : null}
    </div>
  );
}
