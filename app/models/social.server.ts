// CONTRACT (stub until the likes-and-comments work lands): the likes and comments of many moments
// at once, in a constant number of queries. Pages call it from their loaders.
import type { User } from "./users.server";
import type { Photo } from "~/images/photo";

export type CommentView = {
  id: number;
  userId: number;
  firstName: string | null;
  lastName: string | null;
  username: string;
  photo: Photo | null;
  comment: string;
  createdAt: string;
  mine: boolean;
};

export type MomentSocialData = {
  likeCount: number;
  likers: string[];
  likedByMe: boolean;
  commentCount: number;
  comments: CommentView[];
};

export const emptySocial = (): MomentSocialData => ({ likeCount: 0, likers: [], likedByMe: false, commentCount: 0, comments: [] });

/** Likes and comments for `logIds` as `viewer` sees them. Callers have already checked access. */
export async function loadSocial(_viewer: User, logIds: number[]): Promise<Record<number, MomentSocialData>> {
  return Object.fromEntries(logIds.map((id) => [id, emptySocial()]));
}
