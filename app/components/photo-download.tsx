import type { PhotoDownload } from "~/models/photo-downloads.server";

// "Download original" (docs/decisions/0063-full-size-originals.md): a plain link, so it works
// without JavaScript; the image route answers the full-size copy as an attachment with its name.
// A photo stored before full-size copies were kept downloads its largest size, and says so.

/** The label of a photo's download link. */
export function downloadLabel(download: PhotoDownload): string {
  return download.full ? "Download original" : "Download photo";
}

/** One photo's download link, with the size it gives when it is not the original. */
export function PhotoDownloadLink({
  download,
  className,
  label = downloadLabel(download),
  smallSize,
}: {
  download: PhotoDownload;
  className?: string;
  label?: string;
  /** The largest size's width × height, said when there is no original. */
  smallSize?: string;
}) {
  return (
    <>
      <a href={download.href} download={download.name} className={className}>
        {label}
      </a>
      {download.full || !smallSize ? null : (
        <small className="photo-download__note">
          {" "}
          Added before full-size copies were kept: this photo downloads at {smallSize} px.
        </small>
      )}
    </>
  );
}

/** The moment page's download links: one per photo ("Photo 2" of several, named in full for screen readers). */
export function MomentDownloads({ downloads }: { downloads: PhotoDownload[] }) {
  if (!downloads.length) return null;
  if (downloads.length === 1) {
    return (
      <p className="moment__downloads">
        <PhotoDownloadLink download={downloads[0]!} />
      </p>
    );
  }
  const full = downloads.every((d) => d.full);
  return (
    <p className="moment__downloads">
      {full ? "Download originals:" : "Download photos:"}
      {downloads.map((d, i) => (
        <span key={d.href}>
          {" "}
          <a href={d.href} download={d.name} aria-label={`${downloadLabel(d)} of photo ${i + 1}`}>
            Photo {i + 1}
          </a>
        </span>
      ))}
    </p>
  );
}
