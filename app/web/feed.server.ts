import { ageOn, formatShortAge, momentDateView } from "~/lib/dates";
import type { FeedMoment } from "~/models/feed.server";
import type { Moment } from "~/models/moments.server";
import type { MomentSocialData } from "~/models/social.server";
import { altPhotos, type AltPhoto, type Photo as PhotoData } from "~/images/photo";
import type { Clip } from "~/video/clip";

// Feed entries as the feed and My Kids pages render them (app/components/feed.tsx): plain data
// shaped from the feed model's moments.

/** One entry as app/components/feed.tsx renders it. */
export type FeedEntryView = {
  id: number;
  title: string;
  content: string;
  photos: AltPhoto[];
  clips: Clip[];
  milestone: string | null;
  date: { takenOn: string; date: string; age: string };
  kid: { id: number; name: string; photo: PhotoData | null; line: string };
  /** Added since the viewer's last visit to the feed. */
  isNew: boolean;
  /** null: no likes/comments block (My Kids' short list). */
  social: MomentSocialData | null;
  /** Who posted it (a kid can have co-parents), when the page looked it up; null otherwise. */
  postedBy: string | null;
};

/** "Elsa · 2 years, 3 months" (the kid's age on the moment's date), or the name alone before birth. */
export function kidAgeLine(name: string, birthDate: string, takenOn: string): string {
  const age = ageOn(birthDate, takenOn);
  return age ? `${name} · ${formatShortAge(age)}` : name;
}

export function feedEntryView(
  m: FeedMoment,
  opts: { since: string | null; social?: MomentSocialData; posters?: Record<number, string> },
): FeedEntryView {
  return {
    ...kidMomentView(m, m.kid),
    // a 40-pixel avatar needs no blurred placeholder (as comments' avatars): keep the page's data small
    kid: {
      id: m.kid.id,
      name: m.kid.name,
      photo: m.kid.photo ? { ...m.kid.photo, placeholder: "" } : null,
      line: kidAgeLine(m.kid.name, m.kid.birth_date, m.taken_on),
    },
    isNew: opts.since !== null && m.created_at > opts.since,
    social: opts.social ?? null,
    postedBy: m.posted_by === null ? null : (opts.posters?.[m.posted_by] ?? null),
  };
}

/** A kid's moment as the kid's pages render it (moments list, milestones, timeline). */
export function kidMomentView(m: Moment, kid: { name: string; birth_date: string }) {
  return {
    id: m.id,
    title: m.title,
    content: m.content,
    photos: altPhotos(m.photos),
    clips: m.clips,
    milestone: m.milestone,
    date: momentDateView(m.taken_on, kid.name, kid.birth_date),
  };
}
