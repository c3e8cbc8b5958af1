import { parseWithZod } from "@conform-to/zod/v4";
import type { SubmissionResult } from "@conform-to/react";
import { data, redirect, useLocation } from "react-router";
import type { Route } from "./+types/profile-picture";
import { readFields } from "~/api/read-body.server";
import { readPictureUpload } from "~/api/profile-picture.server";
import { json } from "~/api/responses.server";
import { SERVER_ERROR_MESSAGE } from "~/lib/messages";
import { ProfilePictureForm } from "~/components/profile-picture-modal";
import { withParam } from "~/components/modal";
import { AFTER_PICTURE_CHANGE, PICTURE_JSON_HEADER, PictureSchema } from "~/forms/profile-picture";
import { IMAGE_PRESENT } from "~/images/limits";
import { getUser, requireUser } from "~/web/auth.server";
import { deleteProfilePicture, setProfilePicture } from "~/models/profile-pictures.server";
import type { User } from "~/models/users.server";
import "~/styles/photos.css";

// /profile/picture: where the profile picture forms post (intents upload, update, delete).
// Success goes to /my-kids-list. Without JavaScript a failed upload answers this page, with the
// same form and its errors; GET shows the same page. With JavaScript the modal's form sends the
// same FormData here through XMLHttpRequest with the PICTURE_JSON_HEADER header, and the
// middleware below answers JSON instead (same handling), so the browser can show upload progress.

type Outcome = { ok: true } | { ok: false; status: number; result: SubmissionResult<string[]> };

async function handlePictureForm(request: Request, user: User): Promise<Outcome> {
  const type = (request.headers.get("Content-Type") ?? "").toLowerCase();
  if (!type.startsWith("multipart/form-data")) {
    // the delete confirmation (a urlencoded form); anything else here lacks its file
    const fields = await readFields(request).catch(() => ({}) as Record<string, unknown>);
    if (fields.intent === "delete") {
      await deleteProfilePicture(user.id);
      return { ok: true };
    }
    return invalid(new FormData(), {}, []);
  }

  const upload = await readPictureUpload(request, user.id);
  const { file, fields } = upload;
  try {
    if (fields.intent === "delete") {
      await deleteProfilePicture(user.id);
      return { ok: true };
    }
    // past the hourly photo limit: the form again with its message (429), nothing decoded
    if (upload.photoLimitWaitMs) return invalid(new FormData(), {}, upload.formErrors, 429);
    const formData = new FormData();
    for (const [k, v] of Object.entries(fields)) formData.set(k, v);
    if (file) formData.set("image", IMAGE_PRESENT);
    const submission = parseWithZod(formData, { schema: PictureSchema });
    const imageErrors = upload.imageErrors.length ? upload.imageErrors : undefined;
    if (submission.status !== "success" || imageErrors || upload.formErrors.length || !file) {
      return invalid(formData, imageErrors ? { image: imageErrors } : {}, upload.formErrors);
    }
    // upload or update alike: whatever picture the user has now is replaced
    const result = await setProfilePicture(user.id, file);
    if (!result.ok) {
      return invalid(formData, { image: result.fieldErrors?.image ?? [SERVER_ERROR_MESSAGE] }, []);
    }
    return { ok: true };
  } finally {
    await file?.discard();
  }
}

function invalid(
  formData: FormData,
  fieldErrors: Record<string, string[]>,
  formErrors: string[],
  status = 400,
): Outcome {
  const submission = parseWithZod(formData, { schema: PictureSchema });
  const result = submission.reply({ fieldErrors, formErrors, hideFields: ["image"] });
  return { ok: false, status, result };
}

/** The JSON answer for the upload sent by XMLHttpRequest (see the top of this file). */
const jsonUpload: Route.MiddlewareFunction = async ({ request }, next) => {
  if (request.method.toUpperCase() !== "POST" || !request.headers.has(PICTURE_JSON_HEADER)) return next();
  try {
    const user = await getUser(request);
    if (!user) return json({ ok: false, message: "Unauthorized" }, { status: 401 });
    const outcome = await handlePictureForm(request, user);
    return outcome.ok
      ? json({ ok: true, redirectTo: AFTER_PICTURE_CHANGE })
      : json({ ok: false, result: outcome.result }, { status: outcome.status });
  } catch (error) {
    console.error("[profile-picture] upload failed", error);
    return json({ ok: false, message: SERVER_ERROR_MESSAGE }, { status: 500 });
  }
};

export const middleware: Route.MiddlewareFunction[] = [jsonUpload];

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  return { photo: user.photo };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  const outcome = await handlePictureForm(request, user);
  if (outcome.ok) return redirect(AFTER_PICTURE_CHANGE);
  return data({ result: outcome.result }, { status: outcome.status });
}

export default function ProfilePicturePage({ loaderData, actionData }: Route.ComponentProps) {
  const location = useLocation();
  const { photo } = loaderData;
  return (
    <div className="page narrow">
      <h1>{photo ? "Update Or Delete Your Profile Picture" : "Add Your Profile Picture"}</h1>
      <ProfilePictureForm
        key={photo?.key ?? "none"}
        id="picture-page"
        variant="page"
        photo={photo}
        lastResult={actionData?.result}
        cancelTo={AFTER_PICTURE_CHANGE}
        deleteTo={withParam(location.pathname, location.search, "modal", "picture", { confirm: "delete" })}
      />
    </div>
  );
}
