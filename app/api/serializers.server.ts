// Entity → JSON shapes of api-contract.md, in one place.
import { photoUrl } from "~/images/photo";
import type { PublicUser, User } from "~/models/users.server";

/** User. Only the signed-in user's own record carries `email`; never a password hash. */
export function serializeUser(user: PublicUser | User, self: boolean) {
  return {
    id: user.id,
    username: user.username,
    ...(self && "email" in user ? { email: user.email } : {}),
    first_name: user.first_name,
    last_name: user.last_name,
    user_image_url: user.photo ? photoUrl(user.photo) : null,
  };
}
