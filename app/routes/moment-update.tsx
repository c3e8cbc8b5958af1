import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/moment-update";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { momentFormSchema, type MomentFormShape, type MomentInput } from "~/forms/moment";
import { readPhotoForm } from "~/api/body.server";
import { IMAGE_HINTS } from "~/images/limits";
import { checkMomentOwner, updateMoment, viewMoment } from "~/models/moments.server";
import { OWNER_ONLY, pageRefusal } from "~/web/refusal.server";
import { ErrorSummary, pageTitle, SubmitButton, summaryErrors } from "~/components/forms";
import { MomentFields, PhotoField } from "~/components/kids";

const FORM_ID = "moment-update";
const schema = momentFormSchema("update");


export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const view = await viewMoment(user.id, pageId(params.dailyLogId), "change");
  if (!view.ok) throw pageRefusal(view, { forbidden: OWNER_ONLY });
  const { moment, kid } = view;
  return {
    moment: { id: moment.id, title: moment.title, content: moment.content, photo: moment.photo },
    kid: { id: kid.id, name: kid.name },
  };
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const momentId = pageId(params.dailyLogId);
  const allowed = await checkMomentOwner(user.id, momentId);
  if (!allowed.ok) throw pageRefusal(allowed, { forbidden: OWNER_ONLY });
  const form = await readPhotoForm(request, schema);
  try {
    if (!form.value) return data({ result: form.reply() }, { status: 400 });
    const updated = await updateMoment(user.id, momentId, form.value, form.file);
    if (!updated.ok) {
      if (updated.kind === "invalid") return data({ result: form.reply(updated.fieldErrors) }, { status: 400 });
      throw pageRefusal(updated, { forbidden: OWNER_ONLY });
    }
    return redirect(`/dailyLogs/${momentId}`);
  } finally {
    await form.file?.discard();
  }
}

export default function UpdateMoment({ loaderData, actionData }: Route.ComponentProps) {
  const { moment, kid } = loaderData;
  const navigation = useNavigation();
  const [form, fields] = useForm<MomentFormShape, MomentInput>({
    id: FORM_ID,
    lastResult: actionData?.result,
    defaultValue: { title: moment.title, content: moment.content },
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const errors = summaryErrors(fields as never, ["title", "content", "image"], form.errors, FORM_ID);
  return (
    <div className="page narrow">
      <title>{pageTitle(`Update “${moment.title}”`, errors.length > 0)}</title>
      <h1>Update a moment of {kid.name}</h1>
      <ErrorSummary errors={errors} formId={FORM_ID} />
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="stack moment-form">
        <MomentFields fields={fields} />
        <PhotoField
          meta={fields.image}
          label="New Image (optional)"
          hint={`Leave empty to keep the current image. ${IMAGE_HINTS.replace}`}
          current={moment.photo}
          currentAlt={`Current image of “${moment.title}”`}
        />
        <div className="button-row">
          <SubmitButton pending={navigation.state === "submitting"} pendingText="Updating…">
            Update
          </SubmitButton>
          <Link to={`/kids/${kid.id}/dailyLogs`} className="button button--secondary">
            Cancel
          </Link>
        </div>
      </Form>
    </div>
  );
}
