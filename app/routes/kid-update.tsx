import { getFormProps } from "@conform-to/react";
import { Form } from "react-router";
import type { Route } from "./+types/kid-update";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { kidFormDefaults, kidFormSchema, yearOptions, type KidFormShape, type KidInput } from "~/forms/kid";
import { IMAGE_HINTS } from "~/images/limits";
import { checkKidOwner, updateKid, viewKid } from "~/models/kids.server";
import { today } from "~/lib/dates.server";
import { OWNER_ONLY, pageRefusal } from "~/web/refusal.server";
import { savePhotoForm } from "~/web/forms.server";
import { ErrorSummary, pageTitle } from "~/components/forms";
import { AudienceFields } from "~/components/audience";
import { KID_FIELD_ORDER, KidFields, PhotoField, SubmitOrCancel, usePhotoForm } from "~/components/kids";

const FORM_ID = "kid-update";

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const view = await viewKid(user.id, pageId(params.kidId), "change");
  if (!view.ok) throw pageRefusal(view, { forbidden: OWNER_ONLY });
  const { kid } = view;
  return { kid: { id: kid.id, name: kid.name, photo: kid.photo }, defaults: kidFormDefaults(kid), today: today() };
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  return savePhotoForm(
    request,
    kidFormSchema("update", today()),
    {
      allowed: () => checkKidOwner(user.id, kidId),
      save: (value, file) => updateKid(user.id, kidId, value, file),
      to: () => "/my-kids-list",
    },
    { uploader: user.id },
  );
}

export default function UpdateKid({ loaderData, actionData }: Route.ComponentProps) {
  const { kid, defaults } = loaderData;
  const { form, fields, once, errors } = usePhotoForm<KidFormShape, KidInput>(
    FORM_ID,
    kidFormSchema("update", loaderData.today),
    KID_FIELD_ORDER,
    actionData?.result,
    defaults,
  );
  const years = yearOptions(loaderData.today);
  // a kid born before the offered years (added through the API) keeps its year
  const birthYear = Number(defaults.year);
  if (birthYear && !years.includes(birthYear)) years.push(birthYear);
  return (
    <div className="page narrow">
      <title>{pageTitle(`Update ${kid.name}`, errors.length > 0)}</title>
      <h1>Update {kid.name}</h1>
      <ErrorSummary errors={errors} formId={FORM_ID} />
      <Form method="post" encType="multipart/form-data" {...once(getFormProps(form))} className="stack kid-form">
        <KidFields fields={fields} years={years} />
        <PhotoField
          meta={fields.image}
          label="New Profile Image (optional)"
          hint={`Leave empty to keep the current picture. ${IMAGE_HINTS.replace}`}
          current={kid.photo}
          currentAlt={`${kid.name}'s current picture`}
        />
        <AudienceFields meta={fields.default_audience} legend="Who sees new moments by default" fallback="everyone" />
        <SubmitOrCancel pendingText="Updating…" cancelTo="/my-kids-list">
          Update
        </SubmitOrCancel>
      </Form>
    </div>
  );
}
