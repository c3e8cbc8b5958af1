import { getFormProps } from "@conform-to/react";
import { Form, href } from "react-router";
import type { Route } from "./+types/moment-new";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { momentFormSchema, type MomentFormShape, type MomentInput } from "~/forms/moment";
import { IMAGE_HINTS } from "~/images/limits";
import { momentPhotosFrom } from "~/forms/photo-form.server";
import { checkKidOwner, viewKid } from "~/models/kids.server";
import { createMoment } from "~/models/moment-changes.server";
import { OWNER_ONLY, pageRefusal } from "~/web/refusal.server";
import { saveMomentForm } from "~/web/moment-form.server";
import { ErrorSummary, pageTitle, SubmissionToken } from "~/components/forms";
import { AudienceFields } from "~/components/audience";
import { MOMENT_FIELD_ORDER, MomentFields, SubmitOrCancel, usePhotoForm } from "~/components/kids";
import { MomentPhotoFields, photoFieldOrder } from "~/components/moment-photos";
import { ClipFields } from "~/components/clip-fields";
import { clipSettings } from "~/video/clips.server";
import { STORY_FIELD_ORDER, StoryFields } from "~/components/moment-story";

const FORM_ID = "moment-add";
const schema = momentFormSchema("add");

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const view = await viewKid(user.id, pageId(params.kidId), "change");
  if (!view.ok) throw pageRefusal(view, { forbidden: OWNER_ONLY });
  return {
    kid: { id: view.kid.id, name: view.kid.name, defaultAudience: view.kid.default_audience },
    clipSettings: clipSettings(),
  };
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  return saveMomentForm(request, schema, {
    viewerId: user.id,
    kidId: () => checkKidOwner(user.id, kidId),
    photos: (upload) => momentPhotosFrom(upload),
    save: (value, token, photos) => createMoment(user.id, kidId, value, photos, { token }),
    to: ({ moment }) => href("/dailyLogs/:momentId", { momentId: String(moment.id) }),
  });
}

export default function AddMoment({ loaderData, actionData }: Route.ComponentProps) {
  const { kid, clipSettings } = loaderData;
  const { form, fields, once, errors } = usePhotoForm<MomentFormShape, MomentInput>(
    FORM_ID,
    schema,
    [...MOMENT_FIELD_ORDER, ...STORY_FIELD_ORDER, ...photoFieldOrder([], actionData?.pending)] as never,
    actionData?.result,
  );
  return (
    <div className="page narrow">
      <title>{pageTitle(`Add a moment for ${kid.name}`, errors.length > 0)}</title>
      <h1>Add a moment for {kid.name}</h1>
      <ErrorSummary errors={errors} formId={FORM_ID} />
      <Form method="post" encType="multipart/form-data" {...once(getFormProps(form))} className="stack moment-form">
        <SubmissionToken />
        <MomentFields fields={fields} />
        <StoryFields fields={fields} variant="add" kidName={kid.name} />
        <MomentPhotoFields
          fields={fields as never}
          hint={IMAGE_HINTS.choose}
          kidId={kid.id}
          pending={actionData?.pending}
          clips={0}
        />
        <ClipFields fields={fields as never} settings={clipSettings} />
        <AudienceFields meta={fields.audience} legend="Who can see it" fallback={kid.defaultAudience} />
        <SubmitOrCancel pendingText="Adding…" cancelTo={href("/kids/:kidId/dailyLogs", { kidId: String(kid.id) })}>
          Add your new dailyLog
        </SubmitOrCancel>
      </Form>
    </div>
  );
}
