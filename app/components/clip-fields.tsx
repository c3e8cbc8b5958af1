import { type FieldMetadata, getInputProps } from "@conform-to/react";
import { Field, FieldFrame, TextareaField } from "./forms";
import type { Clip, ClipSettings } from "~/video/clip";
import { VIDEO_MESSAGES } from "~/video/limits";
import { ChooseAgain, useChooseAgain } from "./choose-again";

// The clip fields of a moment's add and update forms (docs/decisions/0064-video-clips.md): one clip
// per submission, a file and its required description; on update, a box per clip to remove it. A
// server without ffmpeg says so instead of offering a file field that would only be refused.

type Fields = Record<string, FieldMetadata<unknown>>;

export function ClipFields({
  fields,
  settings,
  existing = [],
  captions = {},
}: {
  fields: Fields;
  settings: ClipSettings;
  /** Update forms: the clips the moment has. */
  existing?: Clip[];
  /** Update forms: each clip's captions as timed lines. */
  captions?: Record<number, string>;
}) {
  return (
    <fieldset className="fieldset clip-fields">
      <legend>Video clip (optional)</legend>
      {existing.length ? (
        <ul className="clip-fields__existing">
          {existing.map((clip) => (
            <li key={clip.id}>
              <label>
                <input type="checkbox" name={`clip_${clip.id}_remove`} /> Remove the clip “{clip.description}”
              </label>
              {clip.status === "ready" ? (
                <TextareaField
                  meta={fields[`clip_${clip.id}_captions`]!}
                  label={`Captions of “${clip.description}” (optional)`}
                  hint="One caption per line: the time it starts, then the words, e.g. 0:05 Grandma, look!"
                  textareaProps={{ defaultValue: captions[clip.id] ?? "", rows: 4 }}
                />
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {settings.enabled ? (
        <>
          <ClipFileField
            meta={fields.video!}
            sentWithClip={Boolean(
              fields.video_description?.value ||
                fields.video_description?.errors?.length ||
                fields.video?.errors?.length,
            )}
            hint={`An MP4, MOV or WebM clip from your phone, up to ${settings.maxMinutes} minutes and ${settings.maxMb} MB. It plays here once it is prepared, a minute or two after you post it.`}
          />
          <Field
            meta={fields.video_description!}
            label="Description of the clip"
            hint="What happens in it, in a few words, for those who cannot watch or hear it. Required with a clip."
            inputProps={{ autoComplete: "off", maxLength: 250 }}
          />
        </>
      ) : (
        <p className="hint">{VIDEO_MESSAGES.unavailable}</p>
      )}
    </fieldset>
  );
}

/**
 * `sentWithClip`: the refused form most likely had a clip (its description was filled in, or the
 * clip or its description has a message): only then does the field say to choose it again.
 */
function ClipFileField({
  meta,
  hint,
  sentWithClip,
}: {
  meta: FieldMetadata<unknown>;
  hint: string;
  sentWithClip: boolean;
}) {
  const m = meta as FieldMetadata<string>;
  const hintId = `${m.id}-hint`;
  const chooseAgain = useChooseAgain() && sentWithClip;
  const againId = `${m.id}-again`;
  const props = getInputProps(m, { type: "file", ariaDescribedBy: chooseAgain ? `${hintId} ${againId}` : hintId });
  return (
    <FieldFrame meta={m} label="Clip" hint={hint} hintId={hintId}>
      {chooseAgain ? <ChooseAgain id={againId} what="clip" /> : null}
      <input {...props} key={props.key} accept="video/mp4,video/quicktime,video/webm,.mp4,.mov,.webm" />
    </FieldFrame>
  );
}
