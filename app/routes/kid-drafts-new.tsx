import { Form, href, Link, useNavigation } from "react-router";
import type { Route } from "./+types/kid-drafts-new";
import "~/styles/drafts.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { config } from "~/lib/config.server";
import { checkKidOwner, viewKid } from "~/models/kids.server";
import { OWNER_ONLY, pageRefusal } from "~/web/refusal.server";
import { addPhotosForm } from "~/web/drafts.server";
import { ADD_PHOTOS_MESSAGES } from "~/forms/add-photos";
import { ErrorSummary, pageTitle, SubmitButton, useSubmitOnce } from "~/components/forms";
import { AddPhotosField } from "~/components/add-photos-field";
import { AddPhotosProgress, useAddPhotosUpload } from "~/components/add-photos-upload";

// /kids/:kidId/drafts/new: "Add photos" (docs/decisions/0065-drafts.md): many photos in one file
// control; the server sorts them into draft moments by day and the review page lists them.

const FORM_ID = "add-photos";
const FIELD_ID = "add-photos-image";

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const view = await viewKid(user.id, pageId(params.kidId), "change");
  if (!view.ok) throw pageRefusal(view, { forbidden: OWNER_ONLY });
  return { kid: { id: view.kid.id, name: view.kid.name }, maxFiles: config().addPhotosMaxFiles };
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  // those who may not see the kid get the not-found page, a friend 403, before the body is read
  const allowed = await checkKidOwner(user.id, kidId);
  if (!allowed.ok) throw pageRefusal(allowed, { forbidden: OWNER_ONLY });
  return addPhotosForm(request, user.id, kidId);
}

export default function AddPhotos({ loaderData, actionData }: Route.ComponentProps) {
  const { kid, maxFiles } = loaderData;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod === "POST";
  const once = useSubmitOnce(busy);
  const reviewUrl = href("/kids/:kidId/drafts", { kidId: String(kid.id) });
  // with JavaScript the photos go by XMLHttpRequest, each with its progress; without, the plain post
  const upload = useAddPhotosUpload(href("/api/kids/:kidId/imports", { kidId: String(kid.id) }), reviewUrl);
  const error = upload.error ?? actionData?.error ?? null;
  return (
    <div className="page narrow">
      <title>{pageTitle(`Add photos for ${kid.name}`, Boolean(error))}</title>
      <p>
        <Link to={href("/kids/:kidId/dailyLogs", { kidId: String(kid.id) })}>{`${kid.name}'s Moments`}</Link>
      </p>
      <h1>Add photos for {kid.name}</h1>
      <p>
        Choose up to {maxFiles} photos at once. Each day's photos become a draft moment (up to 10 photos each) that only
        you see. You then check the drafts, write their texts and publish them.
      </p>
      <ErrorSummary errors={error ? [{ fieldId: FIELD_ID, message: error }] : []} formId={FORM_ID} />
      <Form
        method="post"
        encType="multipart/form-data"
        id={FORM_ID}
        className="stack"
        noValidate
        {...once({ onSubmit: upload.onSubmit })}
      >
        <AddPhotosField
          id={FIELD_ID}
          label={ADD_PHOTOS_MESSAGES.label}
          hint={ADD_PHOTOS_MESSAGES.hint(maxFiles)}
          error={error}
        />
        {upload.sending ? <AddPhotosProgress sending={upload.sending} /> : null}
        <div className="form-actions">
          <SubmitButton pending={busy || upload.sending !== null} pendingText="Uploading photos…">
            Add photos
          </SubmitButton>
          <Link to={reviewUrl} className="button button--secondary">
            Review drafts
          </Link>
        </div>
      </Form>
    </div>
  );
}
