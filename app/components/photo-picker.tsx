import { useEffect, useRef, useState, type ChangeEvent, type InputHTMLAttributes } from "react";
import { chosenFileProblem } from "~/images/limits";
import "~/styles/photos.css";

// The styled photo picker with a preview (docs/design.md "Fields: one family"): the profile picture
// form, the kid forms and every photo slot of the moment forms use it. Without JavaScript it is the
// styled native file input (the server judges the file). With JavaScript, choosing a file shows its
// preview, or, for a file that is not an image (or one the browser cannot draw, such as HEIC in
// most browsers), a clear message instead: never a broken image.

export type PhotoPickerProps = {
  /** The input's props (conform's getInputProps, or id/name/aria for the moment slots). No `key`. */
  inputProps: InputHTMLAttributes<HTMLInputElement> & { id: string; name: string };
  /** The preview's alt text, e.g. "Preview of photo 2". */
  previewAlt: string;
  /** Also told when a file is chosen (the profile picture form resets its own state). */
  onChange?: (event: ChangeEvent<HTMLInputElement>) => void;
  /** A profile picture: previewed in the circle it is shown in. Otherwise the photo's own shape. */
  round?: boolean;
};

type Preview = { url: string } | { message: string } | null;

/** What the picker shows for a chosen file: its preview, or why not (null: nothing chosen). */
export function previewOf(file: File | undefined | null): Preview {
  if (!file || (file.size === 0 && !file.name)) return null;
  const problem = chosenFileProblem(file);
  if (problem) return { message: problem };
  return { url: URL.createObjectURL(file) };
}

export const NO_PREVIEW = "This photo cannot be shown here, but it will be sent: the server checks it when you save.";

export function PhotoPicker({ inputProps, previewAlt, onChange, round = false }: PhotoPickerProps) {
  const [preview, setPreview] = useState<Preview>(null);
  const input = useRef<HTMLInputElement>(null);
  // A file chosen before the page's scripts started (a slow phone) is in the input already, and its
  // change event went unheard: show its preview (or why not) as soon as the picker runs.
  useEffect(() => {
    const file = input.current?.files?.[0];
    if (file) setPreview(previewOf(file));
  }, []);
  // the object URL is released when replaced and when the picker goes away
  useEffect(() => {
    return () => {
      if (preview && "url" in preview) URL.revokeObjectURL(preview.url);
    };
  }, [preview]);
  const statusId = `${inputProps.id}-preview`;
  const describedBy = [inputProps["aria-describedby"], preview && "message" in preview ? statusId : null]
    .filter(Boolean)
    .join(" ");
  return (
    <div className="photo-picker">
      <input
        {...inputProps}
        ref={input}
        type="file"
        accept="image/*"
        className="picture-form__file"
        aria-describedby={describedBy || undefined}
        onChange={(event) => {
          setPreview(previewOf(event.currentTarget.files?.[0]));
          onChange?.(event);
        }}
      />
      {preview && "url" in preview ? (
        <figure className="picture-form__preview">
          <img
            src={preview.url}
            alt={previewAlt}
            className={round ? "picture-form__image" : "photo-picker__image"}
            onError={() => setPreview({ message: NO_PREVIEW })}
          />
          <figcaption>Preview</figcaption>
        </figure>
      ) : null}
      <p id={statusId} className="photo-picker__message" role="status">
        {preview && "message" in preview ? preview.message : ""}
      </p>
    </div>
  );
}
