import type { Route } from "./+types/moment-photo";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { momentDateView } from "~/lib/dates";
import { photoNeighbours } from "~/models/moment-photos.server";
import { viewMoment } from "~/models/moments.server";
import { pageRefusal } from "~/web/refusal.server";
import { notFound } from "~/models/refusal";
import { altPhotos } from "~/images/photo";
import { PhotoViewer, type PhotoViewerData, type ViewerStep } from "~/components/photo-viewer";
import { photoDownload } from "~/models/photo-downloads.server";

// The photo viewer (docs/decisions/0030-*): one photo of a moment at /dailyLogs/{id}/photos/{n} (n
// from 1), large on a dark backdrop, with the moment's title, date and the kid's age, and
// previous/next links within the moment and, past its first and last photo, to the kid's previous
// and next moments that the viewer may see (photoNeighbours). A real page that works without
// JavaScript; seen exactly by those who see the moment (viewMoment asks the access module), its
// photo by the image route's same rule. With JavaScript the moment's page shows the same data in a
// dialog (fetched from this loader).

export async function loader({ request, params }: Route.LoaderArgs): Promise<PhotoViewerData> {
  const user = await requireUser(request);
  const view = await viewMoment(user.id, pageId(params.momentId));
  if (!view.ok) throw pageRefusal(view);
  const { moment, kid } = view;
  const n = pageId(params.n); // a whole number from 1, or the not-found page
  const photo = moment.photos[n - 1];
  if (!photo) throw pageRefusal(notFound("Photo not found"));
  const count = moment.photos.length;
  // past the first or last photo: the kid's neighbouring moments (two queries, only then)
  const around = n === 1 || n === count ? await photoNeighbours(user.id, moment) : { previous: null, next: null };
  const prev: ViewerStep | null =
    n > 1
      ? { momentId: moment.id, n: n - 1, label: "Previous photo" }
      : around.previous && {
          momentId: around.previous.momentId,
          n: around.previous.photoCount,
          label: "Previous moment",
        };
  const next: ViewerStep | null =
    n < count
      ? { momentId: moment.id, n: n + 1, label: "Next photo" }
      : around.next && { momentId: around.next.momentId, n: 1, label: "Next moment" };
  return {
    moment: { id: moment.id, title: moment.title, date: momentDateView(moment.taken_on, kid.name, kid.birth_date) },
    kid: { id: kid.id, name: kid.name },
    photo: altPhotos([photo])[0]!,
    download: photoDownload(photo, { takenOn: moment.taken_on, kidName: kid.name, title: moment.title }, n, count),
    n,
    count,
    prev,
    next,
  };
}

export default function MomentPhotoViewer({ loaderData }: Route.ComponentProps) {
  const { moment, n, count } = loaderData;
  return (
    <>
      <title>{`Photo ${n} of ${count} – ${moment.title} – Sweet Moments`}</title>
      <PhotoViewer data={loaderData} />
    </>
  );
}
