import { getFormProps } from "@conform-to/react";
import { Form } from "react-router";
import type { Route } from "./+types/kid-new";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { kidFormSchema, yearOptions, type KidFormShape, type KidInput } from "~/forms/kid";
import { savePhotoForm } from "~/web/forms.server";
import { IMAGE_HINTS } from "~/images/limits";
import { createKid } from "~/models/kids.server";
import { today } from "~/lib/dates.server";
import { ErrorSummary, pageTitle, SubmissionToken } from "~/components/forms";
import { AudienceFields } from "~/components/audience";
import { KID_FIELD_ORDER, KidFields, PhotoField, SubmitOrCancel, usePhotoForm } from "~/components/kids";

const FORM_ID = "kid-add";

export async function loader({ request }: Route.LoaderArgs) {
  await requireUser(request);
  return { today: today() };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  return savePhotoForm(
    request,
    kidFormSchema("add", today()),
    {
      save: (value, file, token) => createKid(user.id, value, file, { token }),
      to: () => "/my-kids-list",
    },
    { uploader: user.id },
  );
}

export default function AddKid({ loaderData, actionData }: Route.ComponentProps) {
  const { form, fields, once, errors } = usePhotoForm<KidFormShape, KidInput>(
    FORM_ID,
    kidFormSchema("add", loaderData.today),
    KID_FIELD_ORDER,
    actionData?.result,
  );
  return (
    <div className="page narrow">
      <title>{pageTitle("Add a kid", errors.length > 0)}</title>
      <h1>Add a kid</h1>
      <ErrorSummary errors={errors} formId={FORM_ID} />
      <Form method="post" encType="multipart/form-data" {...once(getFormProps(form))} className="stack kid-form">
        <SubmissionToken />
        <KidFields fields={fields} years={yearOptions(loaderData.today)} />
        <PhotoField meta={fields.image} label="Profile Image Upload" hint={`Optional. ${IMAGE_HINTS.choose}`} />
        <AudienceFields meta={fields.default_audience} legend="Who sees new moments by default" fallback="everyone" />
        <SubmitOrCancel pendingText="Adding…" cancelTo="/my-kids-list">
          Add a new kid
        </SubmitOrCancel>
      </Form>
    </div>
  );
}
