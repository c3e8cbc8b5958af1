import type { UploadedFile } from "~/images/multipart.server";
import type { UserRow } from "~/lib/tables";
import type { Photo } from "~/images/photo";
import { withImageTransaction, withNewImage } from "~/images/storage.server";
import type { Db } from "~/lib/db.server";
import { query } from "~/lib/query.server";
import { notFound, type Result } from "./refusal";

// A user's profile picture: set (first time or replacing), delete. The page (/profile/picture)
// and the three /api/users/*-profile-picture routes call these, nothing else touches
// users.image_id. Pictures are kind "user" images owned by the user (visible to any signed-in
// user, app/routes/images.ts). The old picture's row goes in the same transaction that points the
// user at the new one; its files are removed after that commit (storage.server.ts).

export const PROFILE_PICTURE_NOT_FOUND = "profile picture not found";

/**
 * The new picture, or a refusal: invalid (the upload is not an acceptable photo; the message is
 * for the `image` field), not found (`mustExist` was set and the user has no picture (any more)).
 */
export type SetPictureResult = Result<{ photo: Photo }>;

const noPicture = () => notFound(PROFILE_PICTURE_NOT_FOUND);

/** Thrown inside the transaction to roll it back (the new files are removed by withNewImage). */
class NoPicture extends Error {}

/** Whether the user has a profile picture now. */
const userImage = query<{ userId: number }, Pick<UserRow, "image_id">>((p, k) =>
  k("users").where("users.id", p("userId")).first("users.image_id"),
);

export async function hasProfilePicture(userId: number): Promise<boolean> {
  const row = await userImage.first({ userId });
  return row?.image_id != null;
}

/**
 * Stores `file` as the user's profile picture, replacing (and deleting) any old one. Consumes
 * `file`. With `mustExist` (the API's update call) a user without a picture is refused (not
 * found) and nothing changes; this is checked again inside the transaction, so a
 * picture deleted meanwhile counts as missing too.
 */
export async function setProfilePicture(
  userId: number,
  file: UploadedFile,
  { mustExist = false }: { mustExist?: boolean } = {},
): Promise<SetPictureResult> {
  if (mustExist && !(await hasProfilePicture(userId))) {
    await file.discard();
    return noPicture();
  }
  try {
    const result = await withNewImage(file, { kind: "user", ownerId: userId }, async (trx, imageId, { dropImages }) => {
      const user: Pick<UserRow, "image_id"> | undefined = await trx("users").where({ id: userId }).first("image_id");
      if (!user) throw new NoPicture(); // the account was deleted meanwhile
      if (mustExist && !user.image_id) throw new NoPicture();
      await setUserImage(trx, userId, imageId);
      await dropImages([user.image_id]);
    });
    if (!result.ok) return result;
    return { ok: true, photo: result.image };
  } catch (error) {
    if (error instanceof NoPicture) return noPicture();
    throw error;
  } finally {
    await file.discard(); // already gone after withNewImage; harmless
  }
}

/**
 * Points the user at a stored images row (or none), on `conn`, without touching the old picture:
 * for setProfilePicture's transaction and a caller's such as the demo seed's.
 */
export async function setUserImage(conn: Db, userId: number, imageId: number | null): Promise<void> {
  await conn("users").where({ id: userId }).update({ image_id: imageId });
}

/**
 * Deletes the user's profile picture (row now, files after the commit). False when there was none.
 */
export async function deleteProfilePicture(userId: number): Promise<boolean> {
  return withImageTransaction(async (trx, { dropImages }) => {
    const user: Pick<UserRow, "image_id"> | undefined = await trx("users").where({ id: userId }).first("image_id");
    if (!user?.image_id) return false;
    await setUserImage(trx, userId, null);
    await dropImages([user.image_id]);
    return true;
  });
}
