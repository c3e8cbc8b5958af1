// CONTRACT (stub until the likes-and-comments work lands): the like and comment block under a moment.
import type { MomentSocialData } from "~/models/social.server";

export function MomentSocial({
  momentId,
  social,
}: {
  momentId: number;
  social: MomentSocialData;
  /** Path (with search) of the page the block is on: non-JS form posts come back here, at #moment-{id}. */
  returnTo: string;
}) {
  return (
    <div className="moment-social" data-moment={momentId}>
      <span>
        {social.likeCount} {social.likeCount === 1 ? "like" : "likes"}
      </span>{" "}
      <span>
        {social.commentCount} {social.commentCount === 1 ? "comment" : "comments"}
      </span>
    </div>
  );
}
