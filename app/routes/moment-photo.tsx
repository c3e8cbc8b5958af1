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
import { PhotoViewer, type PhotoViewerData, type ViewerItem, type ViewerStep } from "~/components/photo-viewer";
import { viewerClips } from "~/video/clip";
import { photoDownload } from "~/models/photo-downloads.server";

// The photo viewer (docs/decisions/0030-*): one item of a moment at /dailyLogs/{id}/photos/{n} (n
// from 1: its photos, then its clips, docs/decisions/0064-video-clips.md), large on a dark backdrop,
// with the moment's title, date and the kid's age, and previous/next links within the moment and,
// past its first and last item, to the kid's previous and next moments that the viewer may see
// (photoNeighbours). A real page that works without JavaScript; seen exactly by those who see the
// moment (viewMoment asks the access module), its photo or clip by the image and video routes'
// rule. With JavaScript the moment's page shows the same data in a dialog (fetched from this loader).

export async function loader({ request, params }: Route.LoaderArgs): Promise<PhotoViewerData> {
  const user = await requireUser(request);
  const view = await viewMoment(user.id, pageId(params.momentId));
  if (!view.ok) throw pageRefusal(view);
  const { moment, kid } = view;
  const n = pageId(params.n); // a whole number from 1, or the not-found page
  // the moment's items: its photos, then its clips (app/video/clip.ts viewerClips)
  const photos = moment.photos;
  const clips = viewerClips(moment.clips);
  const count = photos.length + clips.length;
  if (n > count) throw pageRefusal(notFound("Photo not found"));
  const kindOf = (i: number) => (i <= photos.length ? "photo" : "video");
  const photo = photos[n - 1];
  const item: ViewerItem = photo
    ? {
        kind: "photo",
        photo: altPhotos([photo])[0]!,
        download: photoDownload(
          photo,
          { takenOn: moment.taken_on, kidName: kid.name, title: moment.title },
          n,
          photos.length,
        ),
      }
    : { kind: "clip", clip: clips[n - 1 - photos.length]! };
  // past the first or last item: the kid's neighbouring moments (two queries, only then)
  const around = n === 1 || n === count ? await photoNeighbours(user.id, moment) : { previous: null, next: null };
  const prev: ViewerStep | null =
    n > 1
      ? { momentId: moment.id, n: n - 1, label: `Previous ${kindOf(n - 1)}` }
      : around.previous && {
          momentId: around.previous.momentId,
          n: around.previous.itemCount,
          label: "Previous moment",
        };
  const next: ViewerStep | null =
    n < count
      ? { momentId: moment.id, n: n + 1, label: `Next ${kindOf(n + 1)}` }
      : around.next && { momentId: around.next.momentId, n: 1, label: "Next moment" };
  return {
    moment: { id: moment.id, title: moment.title, date: momentDateView(moment.taken_on, kid.name, kid.birth_date) },
    kid: { id: kid.id, name: kid.name },
    item,
    n,
    count,
    prev,
    next,
  };
}

export default function MomentPhotoViewer({ loaderData }: Route.ComponentProps) {
  const { moment, n, count, item } = loaderData;
  return (
    <>
      <title>{`${item.kind === "clip" ? "Video" : "Photo"} ${n} of ${count} – ${moment.title} – Sweet Moments`}</title>
      <PhotoViewer data={loaderData} />
    </>
  );
}
