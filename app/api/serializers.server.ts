// Entity → the JSON shapes of docs/api.md (Entities as returned).
import { photoUrl, type Photo } from "~/images/photo";
import type { PublicUser, User } from "~/models/users.server";

/** A photo's URL (its largest derivative) in a JSON shape, or null without one. */
export function imageUrl(photo: Photo | null): string | null {
  return photo ? photoUrl(photo) : null;
}

/** User. Only the signed-in user's own record carries `email`; never a password hash. */
export function serializeUser(user: PublicUser | User, self: boolean) {
  return {
    id: user.id,
    username: user.username,
    ...(self && "email" in user ? { email: user.email } : {}),
    first_name: user.first_name,
    last_name: user.last_name,
    user_image_url: imageUrl(user.photo),
  };
}
