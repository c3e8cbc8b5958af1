import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/moment-new";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { momentFormSchema, type MomentFormShape, type MomentInput } from "~/forms/moment";
import { readPhotoForm } from "~/api/body.server";
import { IMAGE_HINTS } from "~/images/limits";
import { checkKidOwner, viewKid } from "~/models/kids.server";
import { createMoment } from "~/models/moments.server";
import { OWNER_ONLY, pageRefusal } from "~/web/refusal.server";
import { ErrorSummary, pageTitle, SubmitButton, summaryErrors } from "~/components/forms";
import { MomentFields, PhotoField } from "~/components/kids";

const FORM_ID = "moment-add";
const schema = momentFormSchema("add");


export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const view = await viewKid(user.id, pageId(params.kidId), "change");
  if (!view.ok) throw pageRefusal(view, { forbidden: OWNER_ONLY });
  return { kid: { id: view.kid.id, name: view.kid.name } };
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  const allowed = await checkKidOwner(user.id, kidId);
  if (!allowed.ok) throw pageRefusal(allowed, { forbidden: OWNER_ONLY });
  const form = await readPhotoForm(request, schema);
  try {
    if (!form.value) return data({ result: form.reply() }, { status: 400 });
    const created = await createMoment(user.id, kidId, form.value, form.file);
    if (!created.ok) {
      if (created.kind === "invalid") return data({ result: form.reply(created.fieldErrors) }, { status: 400 });
      throw pageRefusal(created, { forbidden: OWNER_ONLY });
    }
    return redirect(`/dailyLogs/${created.moment.id}`);
  } finally {
    await form.file?.discard();
  }
}

export default function AddMoment({ loaderData, actionData }: Route.ComponentProps) {
  const { kid } = loaderData;
  const navigation = useNavigation();
  const [form, fields] = useForm<MomentFormShape, MomentInput>({
    id: FORM_ID,
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const errors = summaryErrors(fields as never, ["title", "content", "image"], form.errors, FORM_ID);
  return (
    <div className="page narrow">
      <title>{pageTitle(`Add a moment for ${kid.name}`, errors.length > 0)}</title>
      <h1>Add a moment for {kid.name}</h1>
      <ErrorSummary errors={errors} formId={FORM_ID} />
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="stack moment-form">
        <MomentFields fields={fields} />
        <PhotoField meta={fields.image} label="Image Upload" hint={IMAGE_HINTS.choose} />
        <div className="button-row">
          <SubmitButton pending={navigation.state === "submitting"} pendingText="Adding…">
            Add your new dailyLog
          </SubmitButton>
          <Link to={`/kids/${kid.id}/dailyLogs`} className="button button--secondary">
            Cancel
          </Link>
        </div>
      </Form>
    </div>
  );
}
