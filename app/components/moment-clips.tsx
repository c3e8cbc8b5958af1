import type { ReactNode } from "react";
import { href, Link } from "react-router";
import { photoUrl } from "~/images/photo";
import { type Clip, clipLength, clipUrl, viewerClips } from "~/video/clip";

// A moment's clips on the pages (docs/decisions/0064-video-clips.md): a plain <video controls
// preload="none"> that plays without JavaScript and loads nothing until played but its poster; a
// small screen is offered the small rendition first (the `media` of the first source), and anyone
// may open the larger one. The clip's description is its caption (what someone who cannot watch or
// hear it reads); captions, when the parent added some, are a <track>. A clip being prepared shows
// as such, with its poster once there is one; one that failed is shown to its parents only, with
// the reason. On the moment's page each clip also opens in the photo viewer, after the photos
// (app/routes/moment-photo.tsx). Styles: app/styles/kids.css.

/** The poster's URL: a width a phone's screen needs, from what exists. */
function posterUrl(clip: Clip): string | undefined {
  if (!clip.poster) return undefined;
  const widths = clip.poster.widths;
  const width = widths.find((w) => w >= 640) ?? widths[widths.length - 1];
  return photoUrl(clip.poster, width);
}

export function MomentClips({
  clips,
  isParent = false,
  viewer,
}: {
  clips: Clip[];
  isParent?: boolean;
  /** The moment's page: each clip links to its page in the viewer, numbered after the moment's photos. */
  viewer?: { momentId: number; photoCount: number };
}) {
  const shown = clips.filter((c) => c.status !== "failed" || isParent);
  if (!shown.length) return null;
  const viewable = viewerClips(clips);
  return (
    <div className="moment__clips">
      {shown.map((clip) => {
        const at = viewable.indexOf(clip);
        return (
          <MomentClip
            key={clip.id}
            clip={clip}
            viewerLink={
              viewer && at >= 0 ? <ViewerLink {...viewer} n={viewer.photoCount + at + 1} clip={clip} /> : null
            }
          />
        );
      })}
    </div>
  );
}

/**
 * The clip's page in the viewer (no JavaScript, a new tab); with JavaScript the moment's page opens
 * it as a dialog (?photo=n) while the URL bar shows the viewer's page, as a photo's link does.
 */
function ViewerLink({ momentId, n, clip }: { momentId: number; n: number; clip: Clip }) {
  return (
    <Link
      to={`${href("/dailyLogs/:momentId", { momentId: String(momentId) })}?photo=${n}`}
      mask={href("/dailyLogs/:momentId/photos/:n", { momentId: String(momentId), n: String(n) })}
      preventScrollReset
    >
      In the viewer<span className="visually-hidden">: {clip.description}</span>
    </Link>
  );
}

/** One clip: its player once prepared, else its state (with its poster once there is one). */
export function MomentClip({ clip, viewerLink = null }: { clip: Clip; viewerLink?: ReactNode }) {
  const length = clip.durationMs ? clipLength(clip.durationMs) : null;
  if (clip.status === "failed") {
    return (
      <p className="clip clip--failed" role="status">
        <strong>This clip could not be prepared</strong> ({clip.description}): {clip.failure}
      </p>
    );
  }
  if (clip.status === "processing") {
    return (
      <figure className="clip clip--processing">
        {clip.poster ? (
          <img src={posterUrl(clip)} alt="" width={clip.width ?? undefined} height={clip.height ?? undefined} />
        ) : null}
        <figcaption>
          <span className="clip__badge">Video</span> {clip.description} — being prepared, it will play here shortly.{" "}
          {viewerLink}
        </figcaption>
      </figure>
    );
  }
  return (
    <figure className="clip">
      <video
        controls
        preload="none"
        playsInline
        poster={posterUrl(clip)}
        width={clip.width ?? undefined}
        height={clip.height ?? undefined}
        aria-label={clip.description}
      >
        <source src={clipUrl(clip, "small")} type="video/mp4" media="(max-width: 40rem)" />
        <source src={clipUrl(clip, "large")} type="video/mp4" />
        {/* the parent's captions, shown at once; or the clip's description as one caption, on request */}
        <track
          kind="captions"
          src={clipUrl(clip, "captions")}
          srcLang="en"
          label={clip.hasCaptions ? "Captions" : "Description"}
          default={clip.hasCaptions}
        />
        <a href={clipUrl(clip, "small")}>Play the clip</a>
      </video>
      <figcaption>
        <span className="clip__badge">Video{length ? ` · ${length}` : ""}</span> {clip.description}{" "}
        <a href={clipUrl(clip, "large")}>
          Larger version<span className="visually-hidden">: {clip.description}</span>
        </a>
        {viewerLink ? <> · {viewerLink}</> : null}
      </figcaption>
    </figure>
  );
}
