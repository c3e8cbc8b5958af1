import { Link } from "react-router";
import type { Route } from "./+types/moment-photo";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { momentDateView } from "~/lib/dates";
import { viewMoment } from "~/models/moments.server";
import { pageRefusal } from "~/web/refusal.server";
import { notFound } from "~/models/refusal";
import { altPhotos } from "~/images/photo";
import { Photo } from "~/components/photo";
import { MomentDate } from "~/components/moment-view";

// The photo viewer (issue #20 point 3): one photo of a moment at /dailyLogs/{id}/photos/{n} (n from
// 1), large on a dark backdrop, with the moment's title, date and the kid's age, and previous/next
// links within the moment. A real page that works without JavaScript; seen exactly by those who
// see the moment (viewMoment asks the access module), its photo by the image route's same rule.

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const view = await viewMoment(user.id, pageId(params.dailyLogId));
  if (!view.ok) throw pageRefusal(view);
  const { moment, kid } = view;
  const n = pageId(params.n); // a whole number from 1, or the not-found page
  const photo = moment.photos[n - 1];
  if (!photo) throw pageRefusal(notFound("Photo not found"));
  return {
    moment: { id: moment.id, title: moment.title, date: momentDateView(moment.taken_on, kid.name, kid.birth_date) },
    kid: { id: kid.id, name: kid.name },
    photo: altPhotos([photo])[0]!,
    n,
    count: moment.photos.length,
  };
}

export default function MomentPhotoViewer({ loaderData }: Route.ComponentProps) {
  const { moment, kid, photo, n, count } = loaderData;
  const base = `/dailyLogs/${moment.id}/photos`;
  const alt = photo.alt && photo.alt !== moment.title ? photo.alt : `Photo: ${moment.title}`;
  return (
    <div className="photo-viewer">
      <title>{`Photo ${n} of ${count} – ${moment.title} – Sweet Moments`}</title>
      <h1 className="photo-viewer__title">{moment.title}</h1>
      <MomentDate view={moment.date} kidName={kid.name} />
      <p className="photo-viewer__count">
        Photo {n} of {count}
      </p>
      <figure className="photo-viewer__figure">
        <Photo photo={photo} alt={alt} sizes="(max-width: 80rem) 100vw, 1280px" priority className="photo-viewer__img" />
      </figure>
      <nav aria-label="Photos of this moment" className="photo-viewer__nav">
        {n > 1 ? (
          <Link to={`${base}/${n - 1}`} rel="prev" className="button button--secondary">
            Previous photo
          </Link>
        ) : null}
        <Link to={`/dailyLogs/${moment.id}`} className="button button--secondary">
          Back to the moment
        </Link>
        {n < count ? (
          <Link to={`${base}/${n + 1}`} rel="next" className="button button--secondary">
            Next photo
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
