import { type FormEvent, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { IMAGE_FIELD } from "~/images/limits";

// "Add photos" with JavaScript (docs/decisions/0065-drafts.md): the same multipart body the plain
// form posts goes to `POST /api/kids/{kidId}/imports` by XMLHttpRequest, whose upload events count
// the bytes really sent (fetch cannot over HTTP/1.1: decision 0067), so each photo shows its own
// progress and the whole its total; then the review page, which lists what the server refused and
// why. Without JavaScript the browser posts the form and shows its own progress.

type Sending = { files: { name: string; size: number }[]; sent: number; total: number };

/** The JSON API's error, whichever of its shapes (`{errors: {message}}`, `{errors: {image: […]}}`). */
function messageOf(xhr: XMLHttpRequest): string {
  try {
    const body = JSON.parse(xhr.responseText) as { errors?: Record<string, string | string[]> };
    const first = Object.values(body.errors ?? {})[0];
    const message = Array.isArray(first) ? first[0] : first;
    if (message) return message;
  } catch {
    // not JSON: a proxy's page, say it plainly below
  }
  return `The photos could not be added (error ${xhr.status}). Please try again.`;
}

export function useAddPhotosUpload(apiUrl: string, reviewUrl: string) {
  const navigate = useNavigate();
  const [sending, setSending] = useState<Sending | null>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const form = event.currentTarget;
    const input = form.elements.namedItem(IMAGE_FIELD);
    const files = input instanceof HTMLInputElement && input.files ? Array.from(input.files) : [];
    // no file chosen: the plain post answers with its message on the field
    if (files.length === 0) return;
    event.preventDefault();
    if (busy.current) return; // one submission per click
    busy.current = true;
    setError(null);
    const total = files.reduce((sum, f) => sum + f.size, 0);
    setSending({ files: files.map((f) => ({ name: f.name, size: f.size })), sent: 0, total });
    const xhr = new XMLHttpRequest();
    xhr.open("POST", apiUrl);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => setSending((s) => s && { ...s, sent: Math.min(e.loaded, s.total) });
    const fail = (message: string) => {
      busy.current = false;
      setSending(null);
      setError(message);
    };
    xhr.onload = () => {
      if (xhr.status === 201) navigate(reviewUrl);
      else fail(messageOf(xhr));
    };
    xhr.onerror = () => fail("The photos could not be sent: check the connection and try again.");
    xhr.send(new FormData(form));
  };

  return { onSubmit, sending, error };
}

const percent = (part: number, whole: number) => (whole > 0 ? Math.floor((100 * part) / whole) : 100);

/** Each photo's bar (its share of the bytes sent, in the order the body carries them) and the total. */
export function AddPhotosProgress({ sending }: { sending: Sending }) {
  let offset = 0;
  const rows = sending.files.map((f) => {
    const sent = Math.max(0, Math.min(f.size, sending.sent - offset));
    offset += f.size;
    return { ...f, sent };
  });
  const done = rows.filter((r) => r.sent >= r.size).length;
  return (
    <div className="photo-uploads">
      <p className="photo-uploads__total" role="status">
        {`${done} of ${rows.length} ${rows.length === 1 ? "photo" : "photos"} sent (${percent(sending.sent, sending.total)}%)`}
        {done === rows.length ? " Sorting them into drafts…" : ""}
      </p>
      <progress className="photo-uploads__bar" max={sending.total || 1} value={sending.sent} aria-label="All photos" />
      <ol className="photo-uploads__list">
        {rows.map((r, i) => (
          <li key={`${i}:${r.name}`} className="photo-upload">
            <div className="photo-upload__fields">
              <p className="photo-upload__name">{r.name}</p>
              <progress max={r.size || 1} value={r.sent} aria-label={`Photo ${i + 1} (${r.name})`} />
              <span className="photo-upload__state">
                {r.sent >= r.size ? "Sent" : r.sent > 0 ? `${percent(r.sent, r.size)}% sent` : "Waiting"}
              </span>
            </div>
          </li>
        ))}
      </ol>
    </div>
  );
}
