import type { CSSProperties } from "react";
import { photoUrl, type Photo as PhotoData } from "~/images/photo";

// The one component for every photo (profile pictures, kids, moments). Responsive (srcset of the
// stored widths, up to what a fixed-size photo needs), no layout shift (width/height from the stored size), lazy unless told otherwise,
// a blurred placeholder painted underneath until the image arrives, and an icon when there is no
// photo. Works with JavaScript off.

export type PhotoProps = {
  photo: PhotoData | null | undefined;
  /** Describes the photo, e.g. "Elsa's photo". Also the icon's accessible name when there is no photo. */
  alt: string;
  /** The `sizes` attribute: how wide the image is displayed, e.g. "(max-width: 600px) 100vw, 320px". */
  sizes?: string;
  /** Above the fold (the page's main photo): load eagerly with high priority. */
  priority?: boolean;
  /**
   * The person's name is shown right next to it (lists, menus): the photo or icon adds nothing for
   * screen readers, so it is hidden from them (empty alt, aria-hidden icon).
   */
  decorative?: boolean;
  /** Which silhouette stands in for a missing photo. */
  icon?: "person" | "child";
  className?: string;
  /** Extra inline style (e.g. a fixed size); merged with the placeholder background. */
  style?: CSSProperties;
  /** An Element Timing name (the `elementtiming` attribute), e.g. for the slow-network bench. */
  timing?: string;
  /**
   * Offer no width under this one (the largest stored when none reaches it): a full-width list
   * photo is never drawn narrower than 320 CSS px, so 160 and 320 would only be picked by a 1×
   * screen narrower than 320 px (docs/decisions/0037-kid-page-cost.md).
   */
  minWidth?: number;
};

/** Only our own placeholders (base64 data URIs) go into the inline style. */
const PLACEHOLDER = /^data:image\/(?:webp|png|jpeg|gif|avif);base64,[A-Za-z0-9+/=]+$/;

/** The `src` width: the middle of the stored widths (640 when all four exist). */
function middleWidth(widths: number[]): number | undefined {
  return widths[Math.floor(widths.length / 2)];
}

/** Screens up to this many device pixels per CSS pixel get a sharp photo. */
const MAX_DENSITY = 3;

/**
 * The widths worth offering and the `src` among them. A photo shown at a fixed size (`sizes` is
 * "40px") needs none wider than the first that covers it on a 3× screen: a list of 50 friends'
 * kids then names one 160 px file each instead of four, and no browser picks a larger one.
 */
export function offeredWidths(
  widths: number[],
  sizes: string,
  minWidth = 0,
): { widths: number[]; src: number | undefined } {
  if (minWidth) {
    const wide = widths.filter((w) => w >= minWidth);
    const kept = wide.length ? wide : widths.slice(-1);
    return { widths: kept, src: kept[0] };
  }
  const fixed = /^(\d+)px$/.exec(sizes.trim());
  if (!fixed) return { widths, src: middleWidth(widths) };
  const needed = Number(fixed[1]) * MAX_DENSITY;
  const cover = widths.findIndex((w) => w >= needed);
  const kept = cover === -1 ? widths : widths.slice(0, cover + 1);
  const twice = Number(fixed[1]) * 2;
  return { widths: kept, src: kept.find((w) => w >= twice) ?? kept[kept.length - 1] };
}

export function Photo({
  photo,
  alt,
  sizes = "100vw",
  priority = false,
  decorative = false,
  icon = "person",
  className,
  style,
  timing,
  minWidth,
}: PhotoProps) {
  if (!photo || photo.widths.length === 0) {
    return <PhotoIcon label={decorative ? null : alt} kind={icon} className={className} style={style} />;
  }
  const offered = offeredWidths(photo.widths, sizes, minWidth);
  // one file is enough: no srcset to choose from
  const srcSet =
    offered.widths.length > 1 ? offered.widths.map((w) => `${photoUrl(photo, w)} ${w}w`).join(", ") : undefined;
  // size, position and repeat of the placeholder come from app.css (img.photo-ph)
  const placeholder: CSSProperties = PLACEHOLDER.test(photo.placeholder)
    ? { backgroundImage: `url("${photo.placeholder}")` }
    : {};
  return (
    <img
      src={photoUrl(photo, offered.src)}
      srcSet={srcSet}
      sizes={srcSet ? sizes : undefined}
      width={photo.width}
      height={photo.height}
      alt={decorative ? "" : alt}
      loading={priority ? "eager" : "lazy"}
      fetchPriority={priority ? "high" : undefined}
      decoding="async"
      className={placeholder.backgroundImage ? (className ? `photo-ph ${className}` : "photo-ph") : className}
      style={{ ...placeholder, ...style }}
      {...(timing ? { elementtiming: timing } : {})}
    />
  );
}

/**
 * The stand-in for a missing photo: a silhouette drawn by CSS (app/icons, inlined in the cached
 * stylesheet), so a page of comments does not repeat the same SVG markup. `label` null means decorative.
 */
export function PhotoIcon({
  label,
  kind = "person",
  className,
  style,
}: {
  label: string | null;
  kind?: "person" | "child";
  className?: string;
  style?: CSSProperties;
}) {
  const a11y = label ? { role: "img", "aria-label": label } : { "aria-hidden": true as const };
  const classes = `photo-icon photo-icon--${kind}${className ? ` ${className}` : ""}`;
  return <span className={classes} style={style} {...a11y} />;
}
