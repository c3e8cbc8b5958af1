import { useEffect } from "react";
import { Link, useFetcher, useLocation, type ShouldRevalidateFunctionArgs, href } from "react-router";
import type { Route } from "./+types/moment";
import "~/styles/kids.css";
import { AudienceLabel } from "~/components/audience";
import { momentAudienceFor } from "~/models/moments.server";
import { posterNames } from "~/models/co-parents.server";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { momentDateView } from "~/lib/dates";
import { momentStamps, viewMoment } from "~/models/moments.server";
import { loadSocial } from "~/models/social.server";
import { pageRefusal } from "~/web/refusal.server";
import { conditionalPage } from "~/web/conditional.server";
import { deleteMomentForm } from "~/web/forms.server";
import { MomentPhotos } from "~/components/moment-photos";
import { MomentClips } from "~/components/moment-clips";
import { viewerClips } from "~/video/clip";
import { altPhotos } from "~/images/photo";
import { MomentSocial } from "~/components/moment-social";
import { MilestoneBadge, MomentDate } from "~/components/moment-view";
import { Modal } from "~/components/modal";
import { PhotoViewer, photoPage, type PhotoViewerData } from "~/components/photo-viewer";
import { MomentDownloads } from "~/components/photo-download";
import { photoDownload } from "~/models/photo-downloads.server";
import { DeleteMomentDialog, MomentOwnerActions, onlyConfirmChanged, withoutConfirm } from "~/components/kid-views";

// conditional (docs/decisions/0034-conditional-pages.md): an unchanged page is a 304, no render
const page = conditionalPage(async ({ request, params }) => {
  const user = await requireUser(request);
  const view = await viewMoment(user.id, pageId(params.momentId));
  if (!view.ok) throw pageRefusal(view);
  const { moment, kid } = view;
  const social = await loadSocial(user, [moment.id]);
  const posters = await posterNames([moment.posted_by]);
  const data = {
    moment: {
      id: moment.id,
      title: moment.title,
      content: moment.content,
      photos: altPhotos(moment.photos),
      clips: moment.clips,
      downloads: moment.photos.map((p, i, all) =>
        photoDownload(p, { takenOn: moment.taken_on, kidName: kid.name, title: moment.title }, i + 1, all.length),
      ),
      milestone: moment.milestone,
      date: momentDateView(moment.taken_on, kid.name, kid.birth_date),
      audience: momentAudienceFor(moment, view.isParent),
      postedBy: moment.posted_by === null ? null : (posters[moment.posted_by] ?? null),
    },
    kid: { id: kid.id, name: kid.name },
    canChange: view.isParent,
    social: social[moment.id]!,
  };
  return { view: data, stamps: momentStamps([moment]) };
});
export const middleware = [page.middleware];
export const loader = page.loader;

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  return deleteMomentForm(request, user.id, pageId(params.momentId));
}

export function shouldRevalidate({
  currentUrl,
  nextUrl,
  formMethod,
  defaultShouldRevalidate,
}: ShouldRevalidateFunctionArgs) {
  if (!formMethod && (onlyConfirmChanged(currentUrl, nextUrl) || onlyPhotoChanged(currentUrl, nextUrl))) return false;
  return defaultShouldRevalidate;
}

/** The search without `photo` (the photo viewer's dialog, below). */
function withoutPhoto(search: string): string {
  const params = new URLSearchParams(search);
  params.delete("photo");
  const q = params.toString();
  return q ? `?${q}` : "";
}

/** Opening, stepping through or closing the photo dialog needs no new moment data. */
function onlyPhotoChanged(currentUrl: URL, nextUrl: URL): boolean {
  return currentUrl.pathname === nextUrl.pathname && withoutPhoto(currentUrl.search) === withoutPhoto(nextUrl.search);
}

/** The viewer's step links inside the dialog: this page with ?photo=n, the viewer's URL in the URL bar. */
const inPlace = (momentId: number, n: number) => ({
  to: `${href("/dailyLogs/:momentId", { momentId: String(momentId) })}?photo=${n}`,
  mask: photoPage(momentId, n),
});

/**
 * The photo viewer as a dialog over this page (with JavaScript): the photo links go to ?photo=n
 * masked as the viewer's own URL (/dailyLogs/{id}/photos/{n}, what a reload, a new tab or a shared
 * link opens), and the dialog shows that page's data, read from its loader.
 */
function PhotoDialog({ momentId, n, closeTo }: { momentId: number; n: string; closeTo: string }) {
  const fetcher = useFetcher<PhotoViewerData>();
  const { load } = fetcher;
  useEffect(() => {
    void load(photoPage(momentId, Number(n)));
  }, [load, momentId, n]);
  // the previous photo stays while the next one loads: the dialog does not blink shut
  const data = fetcher.data;
  if (!data) return null;
  return (
    <Modal title={data.moment.title} closeTo={closeTo}>
      <PhotoViewer data={data} target={inPlace} inDialog />
    </Modal>
  );
}

export default function MomentPage({ loaderData }: Route.ComponentProps) {
  const { moment, kid, canChange, social } = loaderData;
  const location = useLocation();
  const params = new URLSearchParams(location.search);
  const here = location.pathname + withoutConfirm(withoutPhoto(location.search));
  const photo = params.get("photo");
  const confirming =
    canChange && params.get("confirm") === "delete-moment" && Number(params.get("momentId")) === moment.id;
  return (
    <div className="page moment-detail">
      <title>{`${moment.title} – ${kid.name}'s Moments – Sweet Moments`}</title>
      <p className="moment-detail__kid">
        <Link to={href("/kids/:kidId/dailyLogs", { kidId: String(kid.id) })}>{`${kid.name}'s Moments`}</Link>
      </p>
      <article id={`moment-${moment.id}`} className="moment moment--large card" aria-labelledby="moment-title">
        <MomentPhotos
          photos={moment.photos}
          title={moment.title}
          sizes="(max-width: 48rem) 100vw, 768px"
          gridSizes="(max-width: 40rem) 50vw, 256px"
          priority
          viewer={moment.id}
        />
        <h1 id="moment-title" className="moment__title">
          {moment.title}
        </h1>
        <MilestoneBadge milestone={moment.milestone} />
        <MomentDate view={moment.date} kidName={kid.name} />
        {moment.audience ? <AudienceLabel audience={moment.audience} /> : null}
        {moment.postedBy ? <p className="posted-by">Posted by {moment.postedBy}</p> : null}
        <MomentClips
          clips={moment.clips}
          isParent={canChange}
          viewer={{ momentId: moment.id, photoCount: moment.photos.length }}
        />
        <p className="moment__content">{moment.content}</p>
        <MomentDownloads downloads={moment.downloads} />
        {canChange ? (
          <MomentOwnerActions
            momentId={moment.id}
            title={moment.title}
            deleteTo={`${location.pathname}?confirm=delete-moment&momentId=${moment.id}`}
            replace
          />
        ) : null}
        <MomentSocial momentId={moment.id} social={social} returnTo={here} />
      </article>
      {photo &&
      /^[1-9][0-9]?$/.test(photo) &&
      Number(photo) <= moment.photos.length + viewerClips(moment.clips).length ? (
        <PhotoDialog momentId={moment.id} n={photo} closeTo={here} />
      ) : null}
      {confirming ? (
        <DeleteMomentDialog momentId={moment.id} action={location.pathname} closeTo={here} replace />
      ) : null}
    </div>
  );
}
