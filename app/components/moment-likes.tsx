import { useState } from "react";
import { useFetcher } from "react-router";
import type { MomentSocialData } from "~/models/social.server";
import { useSubmitOnce } from "./form-basics";
import { HeartIcon } from "./icons";
import { Hidden } from "./moment-comments";
import type { SocialActionData } from "./moment-social";
import { useRootData } from "./root-data";

// The like half of the block under a moment (app/components/moment-social.tsx): the count with who
// liked, and the Like button, optimistic while its fetcher runs.

export const likesLabel = (n: number) => `${n} ${n === 1 ? "like" : "likes"}`;

/** The like as the viewer sees it: optimistic while the fetcher runs, the server's answer afterwards. */
export function useOptimisticLike(social: MomentSocialData) {
  const me = useRootData()?.user?.username ?? null;
  const fetcher = useFetcher<SocialActionData>();
  const pendingIntent = fetcher.formData?.get("intent");
  const liked = pendingIntent === "like" ? true : pendingIntent === "unlike" ? false : social.likedByMe;
  const delta = liked === social.likedByMe ? 0 : liked ? 1 : -1;
  const likers =
    delta === 0 || !me
      ? social.likers
      : delta > 0
        ? [...social.likers.filter((u) => u !== me), me]
        : social.likers.filter((u) => u !== me);
  return { fetcher, liked, busy: fetcher.state !== "idle", count: Math.max(0, social.likeCount + delta), likers };
}

/** The Like button (Like again to unlike), posted through the like's fetcher. */
export function LikeForm({
  like,
  action,
  back,
}: {
  like: ReturnType<typeof useOptimisticLike>;
  action: string;
  back: string;
}) {
  const once = useSubmitOnce(like.busy);
  return (
    <like.fetcher.Form method="post" action={action} className="like-form" {...once()}>
      {/* the intent is the button's own value: one hidden field fewer on every moment of a list */}
      <Hidden returnTo={back} />
      <button
        type="submit"
        name="intent"
        value={like.liked ? "unlike" : "like"}
        className={"button button--small like-button" + (like.liked ? " like-button--on" : "")}
        aria-pressed={like.liked}
        aria-disabled={like.busy || undefined}
      >
        <HeartIcon filled={like.liked} />
        Like
      </button>
    </like.fetcher.Form>
  );
}

/**
 * "3 likes": a button that shows who liked on hover and on keyboard focus (a CSS tooltip, so it
 * works without JavaScript), and tells screen readers through aria-describedby. Escape hides it.
 */
export function LikeCount({ id, count, likers }: { id: number; count: number; likers: string[] }) {
  const [dismissed, setDismissed] = useState(false);
  if (count === 0 || likers.length === 0) return <span className="social-count">{likesLabel(count)}</span>;
  const tipId = `likers-${id}`;
  return (
    <span className={"likers" + (dismissed ? " likers--dismissed" : "")} onMouseLeave={() => setDismissed(false)}>
      <button
        type="button"
        className="likers__button"
        aria-describedby={tipId}
        onKeyDown={(e) => {
          if (e.key === "Escape") setDismissed(true);
        }}
        onBlur={() => setDismissed(false)}
      >
        {likesLabel(count)}
      </button>
      <span role="tooltip" id={tipId} className="likers__tip">
        {`Liked by ${likers.join(", ")}`}
      </span>
    </span>
  );
}
