import type { ReactNode } from "react";
import { Link, href } from "react-router";
import { Photo as PhotoView } from "~/components/photo";
import type { AltPhoto } from "~/images/photo";

// A moment's photos as pages show them: one photo or a grid (docs/decisions/0030-several-photos-per-moment.md).
// Apart from their form fields (app/components/moment-photos.tsx) so the pages that only show
// moments load no form code (docs/decisions/0035-slow-networks.md).

/** A photo as the pages get it (app/images/photo.ts altPhotos): the stored photo and its alt text (`id`: its row, update forms only). */
export type MomentPhotoView = AltPhoto & { id?: number };

/** The alt text shown: the photo's own, or "Photo: <title>" when it is just the title (the default). */
function altOf(photo: MomentPhotoView, title: string): string {
  return !photo.alt || photo.alt === title ? `Photo: ${title}` : photo.alt;
}

/**
 * One photo as before (full width of the column, `sizes`), or several as a grid of squares: two
 * columns on a phone, three from 40rem (`gridSizes` says so to the browser, so a phone loads
 * the small derivatives). Only the first photo of a page's first moment is loaded eagerly.
 */
export function MomentPhotos({
  photos,
  title,
  sizes,
  gridSizes = "(max-width: 40rem) 50vw, 200px",
  priority = false,
  className = "moment__photo",
  viewer,
  overlay,
  timing,
  minWidth,
}: {
  photos: MomentPhotoView[];
  title: string;
  sizes: string;
  gridSizes?: string;
  priority?: boolean;
  className?: string;
  /** The moment's id: each photo links to its page in the photo viewer (app/routes/moment-photo.tsx). */
  viewer?: number;
  /** A link laid over the photo(s) (lists: the photo opens the moment; app/styles/kids.css). */
  overlay?: ReactNode;
  /** An Element Timing name for the first photo (the kid page's first moment: bench/slow-network.mjs). */
  timing?: string;
  /** A single photo offers no width under this one (app/components/photo.tsx). */
  minWidth?: number;
}) {
  const content = photoContent();
  return overlay ? (
    <div className="moment__photo-frame">
      {content}
      {overlay}
    </div>
  ) : (
    content
  );

  function photoContent() {
    const linked = (i: number, img: ReactNode) =>
      viewer ? (
        // the viewer's page (no JavaScript, a new tab); with JavaScript the moment's page opens it as a
        // dialog (?photo=n) while the URL bar shows the viewer's page (app/routes/moment.tsx)
        <Link
          to={`${href("/dailyLogs/:momentId", { momentId: String(viewer) })}?photo=${i + 1}`}
          mask={href("/dailyLogs/:momentId/photos/:n", { momentId: String(viewer), n: String(i + 1) })}
          preventScrollReset
          className="photo-link"
        >
          {img}
        </Link>
      ) : (
        img
      );
    if (photos.length <= 1) {
      const photo = photos[0] ?? null;
      const img = (
        <PhotoView
          photo={photo}
          alt={photo ? altOf(photo, title) : `Photo: ${title}`}
          sizes={sizes}
          priority={priority}
          className={className}
          timing={timing}
          minWidth={minWidth}
        />
      );
      return photo ? linked(0, img) : img;
    }
    return (
      <ul className="photo-grid" aria-label={`${photos.length} photos: ${title}`}>
        {photos.map((p, i) => (
          <li key={p.key} className="photo-grid__item">
            {linked(
              i,
              <PhotoView
                photo={p}
                alt={altOf(p, title)}
                sizes={gridSizes}
                priority={priority && i === 0}
                className="photo-grid__img"
                timing={i === 0 ? timing : undefined}
              />,
            )}
          </li>
        ))}
      </ul>
    );
  }
}
