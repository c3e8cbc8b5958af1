import { IMAGE_FIELD, MULTIPART_MESSAGES } from "~/images/limits";
import { parseMultipart, type UploadedFile } from "~/images/multipart.server";
import { photoUrl } from "~/images/photo";
import { PICTURE_MESSAGES } from "~/forms/profile-picture";
import { PROFILE_PICTURE_NOT_FOUND, setProfilePicture } from "~/models/profile-pictures.server";
import type { User } from "~/models/users.server";
import { apiRefusal } from "./refusal.server";
import { photoLimitResponse } from "./read-body.server";
import { apiError, apiFieldErrors, json } from "./responses.server";

// Reading a profile picture upload (page and API alike) and the API's answers to it.

export const PICTURE_NOT_FOUND = PROFILE_PICTURE_NOT_FOUND;

export type PictureUpload = {
  /** Text fields of the form (e.g. `intent`). */
  fields: Record<string, string>;
  /** The uploaded file, or null. Whoever gets it must consume it (setProfilePicture) or discard it. */
  file: UploadedFile | null;
  /** Messages for the `image` field: too big, or "Image is required" when no file came. */
  imageErrors: string[];
  /** Problems with the request as a whole (malformed body, too many parts, the hourly photo limit). */
  formErrors: string[];
  /** 0, or the wait of an uploader past the hourly photo limit (answered 429). */
  photoLimitWaitMs: number;
};

/**
 * Streams a multipart body (never buffered whole). Anything that is not multipart counts as a
 * form without a file ("Image is required"); its body is read and discarded.
 */
export async function readPictureUpload(request: Request, uploader: number): Promise<PictureUpload> {
  const { fields, file, errors, photoLimitWaitMs } = await parseMultipart(request, {}, { uploader });
  const imageErrors = [...(errors[IMAGE_FIELD] ?? [])];
  let formErrors = (errors.message ?? []).filter((m) => m !== MULTIPART_MESSAGES.notMultipart);
  // A file over the limit also makes the body too large: one message says it.
  if (imageErrors.length) formErrors = formErrors.filter((m) => m !== MULTIPART_MESSAGES.bodyTooBig);
  else if (formErrors.includes(MULTIPART_MESSAGES.bodyTooBig)) {
    formErrors = formErrors.filter((m) => m !== MULTIPART_MESSAGES.bodyTooBig);
    imageErrors.push(MULTIPART_MESSAGES.imageTooBig);
  }
  if (!file && !imageErrors.length && !formErrors.length) imageErrors.push(PICTURE_MESSAGES.required);
  return { fields, file, imageErrors, formErrors, photoLimitWaitMs };
}

/**
 * POST /api/users/upload-profile-picture (201) and PUT /api/users/update-profile-picture
 * (200, `mustExist`: 404 (C) when the user has no picture). 400 (B) `image` for a missing,
 * too large or unacceptable file; 400 (C) for an unreadable body.
 */
export async function pictureUploadResponse(
  request: Request,
  user: User,
  { mustExist, successStatus }: { mustExist: boolean; successStatus: number },
): Promise<Response> {
  const upload = await readPictureUpload(request, user.id);
  const { file } = upload;
  try {
    // 404 comes before 400 (docs/api.md, Users): a PUT without a picture is "not found" whatever it sent.
    if (mustExist && !user.photo) return apiError(404, PICTURE_NOT_FOUND);
    if (upload.photoLimitWaitMs) return photoLimitResponse(upload.photoLimitWaitMs);
    if (upload.imageErrors.length) return apiFieldErrors({ image: upload.imageErrors });
    if (upload.formErrors.length || !file) return apiError(400, upload.formErrors[0] ?? MULTIPART_MESSAGES.malformed);
    const result = await setProfilePicture(user.id, file, { mustExist });
    if (!result.ok) return apiRefusal(result);
    return json({ user_image_url: photoUrl(result.photo) }, { status: successStatus });
  } finally {
    await file?.discard();
  }
}
