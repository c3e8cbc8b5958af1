import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/kid-update";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { kidFormDefaults, kidFormSchema, yearOptions, type KidFormShape, type KidInput } from "~/forms/kid";
import { readPhotoForm } from "~/api/body.server";
import { IMAGE_HINTS } from "~/images/limits";
import { checkKidOwner, updateKid, viewKid } from "~/models/kids.server";
import { today } from "~/lib/dates.server";
import { OWNER_ONLY, pageRefusal } from "~/web/refusal.server";
import { ErrorSummary, pageTitle, SubmitButton, summaryErrors } from "~/components/forms";
import { KidFields, PhotoField } from "~/components/kids";

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
  const allowed = await checkKidOwner(user.id, kidId);
  if (!allowed.ok) throw pageRefusal(allowed, { forbidden: OWNER_ONLY });
  const form = await readPhotoForm(request, kidFormSchema("update", today()));
  try {
    if (!form.value) return data({ result: form.reply() }, { status: 400 });
    const updated = await updateKid(user.id, kidId, form.value, form.file);
    if (!updated.ok) {
      if (updated.kind === "invalid") return data({ result: form.reply(updated.fieldErrors) }, { status: 400 });
      throw pageRefusal(updated, { forbidden: OWNER_ONLY });
    }
    return redirect("/my-kids-list");
  } finally {
    await form.file?.discard();
  }
}

export default function UpdateKid({ loaderData, actionData }: Route.ComponentProps) {
  const { kid, defaults } = loaderData;
  const navigation = useNavigation();
  const [form, fields] = useForm<KidFormShape, KidInput>({
    id: FORM_ID,
    lastResult: actionData?.result,
    defaultValue: defaults,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: kidFormSchema("update", loaderData.today) }),
  });
  const errors = summaryErrors(fields as never, ["name", "year", "month", "day", "relationship", "image"], form.errors, FORM_ID);
  const years = yearOptions(loaderData.today);
  // a kid born before the offered years (added through the API) keeps its year
  const birthYear = Number(defaults.year);
  if (birthYear && !years.includes(birthYear)) years.push(birthYear);
  return (
    <div className="page narrow">
      <title>{pageTitle(`Update ${kid.name}`, errors.length > 0)}</title>
      <h1>Update {kid.name}</h1>
      <ErrorSummary errors={errors} formId={FORM_ID} />
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="stack kid-form">
        <KidFields fields={fields} years={years} />
        <PhotoField
          meta={fields.image}
          label="New Profile Image (optional)"
          hint={`Leave empty to keep the current picture. ${IMAGE_HINTS.replace}`}
          current={kid.photo}
          currentAlt={`${kid.name}'s current picture`}
        />
        <div className="button-row">
          <SubmitButton pending={navigation.state === "submitting"} pendingText="Updating…">
            Update
          </SubmitButton>
          <Link to="/my-kids-list" className="button button--secondary">
            Cancel
          </Link>
        </div>
      </Form>
    </div>
  );
}
