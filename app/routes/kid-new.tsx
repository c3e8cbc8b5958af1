import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/kid-new";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { kidFormSchema, yearOptions, type KidFormShape, type KidInput } from "~/forms/kid";
import { readPhotoForm } from "~/api/body.server";
import { IMAGE_HINTS } from "~/images/limits";
import { createKid } from "~/models/kids.server";
import { today } from "~/lib/dates.server";
import { ErrorSummary, pageTitle, SubmitButton, summaryErrors } from "~/components/forms";
import { KidFields, PhotoField } from "~/components/kids";

const FORM_ID = "kid-add";

export async function loader({ request }: Route.LoaderArgs) {
  await requireUser(request);
  return { today: today() };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  const form = await readPhotoForm(request, kidFormSchema("add", today()));
  try {
    if (!form.value) return data({ result: form.reply() }, { status: 400 });
    const created = await createKid(user.id, form.value, form.file);
    if (!created.ok) return data({ result: form.reply(created.fieldErrors) }, { status: 400 });
    return redirect("/my-kids-list");
  } finally {
    await form.file?.discard();
  }
}

export default function AddKid({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const [form, fields] = useForm<KidFormShape, KidInput>({
    id: FORM_ID,
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: kidFormSchema("add", loaderData.today) }),
  });
  const errors = summaryErrors(fields as never, ["name", "year", "month", "day", "relationship", "image"], form.errors, FORM_ID);
  return (
    <div className="page narrow">
      <title>{pageTitle("Add a kid", errors.length > 0)}</title>
      <h1>Add a kid</h1>
      <ErrorSummary errors={errors} formId={FORM_ID} />
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="stack kid-form">
        <KidFields fields={fields} years={yearOptions(loaderData.today)} />
        <PhotoField meta={fields.image} label="Profile Image Upload" hint={`Optional. ${IMAGE_HINTS.choose}`} />
        <div className="button-row">
          <SubmitButton pending={navigation.state === "submitting"} pendingText="Adding…">
            Add a new kid
          </SubmitButton>
          <Link to="/my-kids-list" className="button button--secondary">
            Cancel
          </Link>
        </div>
      </Form>
    </div>
  );
}
