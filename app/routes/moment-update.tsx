import { getFormProps } from "@conform-to/react";
import { Form, href } from "react-router";
import type { Route } from "./+types/moment-update";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { momentFormSchema, type MomentFormShape, type MomentInput } from "~/forms/moment";
import { IMAGE_HINTS } from "~/images/limits";
import { momentPhotosFrom } from "~/forms/photo-form.server";
import { checkMomentOwner, viewMoment } from "~/models/moments.server";
import { updateMoment } from "~/models/moment-changes.server";
import { OWNER_ONLY, pageRefusal } from "~/web/refusal.server";
import { saveMomentForm } from "~/web/moment-form.server";
import { ErrorSummary, pageTitle } from "~/components/forms";
import { AudienceFields } from "~/components/audience";
import { MOMENT_FIELD_ORDER, MomentFields, SubmitOrCancel, usePhotoForm } from "~/components/kids";
import { MomentPhotoFields, photoDefaults, photoFieldOrder } from "~/components/moment-photos";
import { ClipFields } from "~/components/clip-fields";
import { clipSettings } from "~/video/clips.server";
import { captionLinesOf } from "~/models/moment-clips.server";
import { milestoneDefaults, STORY_FIELD_ORDER, StoryFields } from "~/components/moment-story";

const FORM_ID = "moment-update";
const schema = momentFormSchema("update");

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const view = await viewMoment(user.id, pageId(params.momentId), "change");
  if (!view.ok) throw pageRefusal(view, { forbidden: OWNER_ONLY });
  const { moment, kid } = view;
  return {
    moment: {
      id: moment.id,
      title: moment.title,
      content: moment.content,
      photos: moment.photos.map(({ id, key, width, height, widths, placeholder, alt }) => ({
        id,
        key,
        width,
        height,
        widths,
        placeholder,
        alt,
      })),
      takenOn: moment.taken_on,
      milestone: moment.milestone,
      audience: moment.audience,
      clips: moment.clips,
    },
    kid: { id: kid.id, name: kid.name },
    clipSettings: clipSettings(),
    captions: await captionLinesOf(moment.id),
  };
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const momentId = pageId(params.momentId);
  return saveMomentForm(request, schema, {
    viewerId: user.id,
    kidId: () => checkMomentOwner(user.id, momentId),
    photos: (upload) => momentPhotosFrom(upload, { edits: true }),
    save: (value, _token, photos) => updateMoment(user.id, momentId, value, photos),
    to: () => href("/dailyLogs/:momentId", { momentId: String(momentId) }),
  });
}

export default function UpdateMoment({ loaderData, actionData }: Route.ComponentProps) {
  const { moment, kid, clipSettings, captions } = loaderData;
  const { form, fields, once, errors } = usePhotoForm<MomentFormShape, MomentInput>(
    FORM_ID,
    schema,
    [...MOMENT_FIELD_ORDER, ...STORY_FIELD_ORDER, ...photoFieldOrder(moment.photos, actionData?.pending)] as never,
    actionData?.result,
    {
      title: moment.title,
      content: moment.content,
      taken_on: moment.takenOn,
      ...milestoneDefaults(moment.milestone),
      audience: moment.audience,
      ...photoDefaults(moment.photos),
    } as never,
  );
  return (
    <div className="page narrow">
      <title>{pageTitle(`Update “${moment.title}”`, errors.length > 0)}</title>
      <h1>Update a moment of {kid.name}</h1>
      <ErrorSummary errors={errors} formId={FORM_ID} />
      <Form method="post" encType="multipart/form-data" {...once(getFormProps(form))} className="stack moment-form">
        <MomentFields fields={fields} />
        <StoryFields fields={fields} variant="update" kidName={kid.name} />
        <MomentPhotoFields
          fields={fields as never}
          existing={moment.photos}
          hint={`Optional: photos to add. ${IMAGE_HINTS.replace}`}
          kidId={kid.id}
          pending={actionData?.pending}
          clips={moment.clips.length}
        />
        <ClipFields fields={fields as never} settings={clipSettings} existing={moment.clips} captions={captions} />
        <AudienceFields meta={fields.audience} legend="Who can see it" fallback={moment.audience} />
        <SubmitOrCancel pendingText="Updating…" cancelTo={href("/kids/:kidId/dailyLogs", { kidId: String(kid.id) })}>
          Update
        </SubmitOrCancel>
      </Form>
    </div>
  );
}
