import { useEffect, useRef, useState } from "react";
import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Link, useLocation, useNavigate, useNavigation, useRevalidator } from "react-router";
import { ConfirmDialog, Modal, withParam } from "./modal";
import { ErrorSummary, FieldFrame, pageTitle, SubmitButton, summaryErrors, useErrorTitle } from "./forms";
import { Photo as PhotoImage } from "~/components/photo";
import { PhotoPicker } from "~/components/photo-picker";
import { IMAGE_HINTS } from "~/images/limits";
import type { Photo } from "~/images/photo";
import { AFTER_PICTURE_CHANGE, PICTURE_JSON_HEADER, PICTURE_MESSAGES, PictureSchema } from "~/forms/profile-picture";
import "~/styles/photos.css";

// The profile picture modal (docs/spec.md §2, Modals) and the form it shares with the /profile/picture page.
//
// Without JavaScript the form is a plain multipart POST to /profile/picture: success redirects to
// /my-kids-list, errors come back on that page with the same form. With JavaScript the same
// FormData goes to the same URL through XMLHttpRequest (so upload progress can be shown) with a
// header that makes the route answer JSON; a preview of the chosen file is shown before sending.

export const PICTURE_ACTION = "/profile/picture";

/** The add/update form. `variant` "page" owns the document title. */
export function ProfilePictureForm({
  id,
  photo,
  lastResult,
  cancelTo,
  deleteTo,
  variant,
}: {
  id: string;
  photo: Photo | null;
  lastResult?: SubmissionResult<string[]>;
  cancelTo: string;
  deleteTo: string;
  variant: "modal" | "page";
}) {
  const navigate = useNavigate();
  const location = useLocation();
  const revalidator = useRevalidator();
  const [clientResult, setClientResult] = useState<SubmissionResult<string[]> | undefined>(undefined);
  const [progress, setProgress] = useState<number | null>(null);
  const xhrRef = useRef<XMLHttpRequest | null>(null);
  const intent = photo ? "update" : "upload";

  const [form, fields] = useForm({
    id,
    lastResult: clientResult ?? lastResult,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: PictureSchema }),
    onSubmit(event, { formData, action }) {
      event.preventDefault();
      if (xhrRef.current) return; // already on its way
      send(formData, action || PICTURE_ACTION);
    },
  });

  useEffect(() => () => xhrRef.current?.abort(), []);

  function failed(result: SubmissionResult<string[]>) {
    xhrRef.current = null;
    setProgress(null);
    setClientResult(result);
  }

  function send(formData: FormData, action: string) {
    const xhr = new XMLHttpRequest();
    xhrRef.current = xhr;
    setProgress(0);
    xhr.open("POST", action);
    xhr.setRequestHeader(PICTURE_JSON_HEADER, "1");
    xhr.setRequestHeader("Accept", "application/json");
    xhr.responseType = "json";
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) setProgress(Math.min(100, Math.round((e.loaded / e.total) * 100)));
    };
    xhr.onload = async () => {
      const body = xhr.response as { ok?: boolean; redirectTo?: string; result?: SubmissionResult<string[]> } | null;
      if (xhr.status === 200 && body?.ok) {
        xhrRef.current = null;
        const to = body.redirectTo ?? AFTER_PICTURE_CHANGE;
        // Leaving a URL with a search (the modal's) reloads every loader, the header's avatar
        // included; from the plain page (no search) ask for it.
        const sameSearch = location.search === new URL(to, window.location.origin).search;
        await navigate(to);
        if (sameSearch) await revalidator.revalidate();
        return;
      }
      failed(body?.result ?? serverErrorResult());
    };
    xhr.onerror = () => failed(serverErrorResult());
    xhr.send(formData);
  }

  const errors = summaryErrors(fields as never, ["image"], form.errors, id);
  useErrorTitle(variant === "modal" && errors.length > 0);
  const uploading = progress !== null;
  const hintId = `${fields.image.id}-hint`;
  // no `key`: conform must never remount the input (it would lose the chosen file)
  const { key: _key, ...inputProps } = getInputProps(fields.image, { type: "file", ariaDescribedBy: hintId });
  const title = photo ? "Update Or Delete Your Profile Picture" : "Add Your Profile Picture";

  return (
    <div className="picture-form">
      {variant === "page" ? <title>{pageTitle(title, errors.length > 0)}</title> : null}
      <ErrorSummary errors={errors} formId={id} />
      {photo ? (
        <div className="picture-form__current">
          <PhotoImage
            photo={photo}
            alt="Your current profile picture"
            sizes="160px"
            priority
            className="picture-form__image"
          />
          <Link to={deleteTo} preventScrollReset className="button button--danger">
            Delete Image
          </Link>
        </div>
      ) : null}
      <form
        method="post"
        action={PICTURE_ACTION}
        encType="multipart/form-data"
        {...getFormProps(form)}
        className="stack"
      >
        <input type="hidden" name="intent" value={intent} />
        <FieldFrame
          meta={fields.image}
          label={photo ? "Choose a new picture" : "Choose a picture"}
          hint={IMAGE_HINTS.picture}
          hintId={hintId}
        >
          <PhotoPicker inputProps={inputProps} previewAlt="Preview of the chosen picture" round />
        </FieldFrame>
        {uploading ? (
          <div className="picture-form__progress" role="status">
            <label htmlFor={`${id}-progress`}>Uploading… {progress}%</label>
            <progress id={`${id}-progress`} max={100} value={progress ?? 0}>
              {progress}%
            </progress>
          </div>
        ) : null}
        <div className="button-row">
          <SubmitButton pending={uploading} pendingText="Uploading…">
            {photo ? "Update" : "Upload"}
          </SubmitButton>
          <Link to={cancelTo} preventScrollReset className="button button--secondary">
            Cancel
          </Link>
        </div>
      </form>
    </div>
  );
}

/** A form-level "Something went wrong. Please try again." (docs/spec.md §8) for conform. */
function serverErrorResult(): SubmissionResult<string[]> {
  return { status: "error", error: { "": [PICTURE_MESSAGES.serverError] }, initialValue: {} };
}

/**
 * The profile picture modal, opened by `?modal=picture` (app/components/root-modals.tsx);
 * `&confirm=delete` shows the delete confirmation instead.
 */
export function ProfilePictureModal({
  user,
  closeTo,
  confirm,
}: {
  user: { photo: Photo | null };
  closeTo: string;
  confirm: boolean;
}) {
  const location = useLocation();
  const navigation = useNavigation();
  const pictureUrl = withParam(location.pathname, location.search, "modal", "picture", { confirm: null });
  const deleteUrl = withParam(location.pathname, location.search, "modal", "picture", { confirm: "delete" });

  if (confirm && user.photo) {
    const deleting = navigation.state !== "idle" && navigation.formAction === PICTURE_ACTION;
    return (
      <ConfirmDialog
        title="Confirm Delete"
        question="Are you sure you want to delete your profile image?"
        closeTo={pictureUrl}
        yesLabel="Yes (Delete Image)"
        noLabel="No (Keep Image)"
        action={PICTURE_ACTION}
        intent="delete"
        pending={deleting}
      />
    );
  }
  return (
    <Modal title={user.photo ? "Update Or Delete Your Profile Picture" : "Add Your Profile Picture"} closeTo={closeTo}>
      <ProfilePictureForm
        // a fresh form (and conform state) when the picture changes
        key={user.photo?.key ?? "none"}
        id="picture-modal"
        variant="modal"
        photo={user.photo}
        cancelTo={closeTo}
        deleteTo={deleteUrl}
      />
    </Modal>
  );
}
