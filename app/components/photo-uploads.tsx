import { useCallback, useEffect, useRef, useState, type InputHTMLAttributes, type ReactNode } from "react";
import { chosenFileProblem } from "~/images/limits";
import { useHydrated } from "./form-basics";
import "~/styles/photos.css";

// Several photos chosen in one plain file control, each sent on its own as soon as it is chosen
// with its true progress (docs/decisions/0067-one-photo-control.md). Without JavaScript the control
// is the browser's own `<input type="file" multiple>` and its files go with the form. With it,
// `usePhotoUploads` takes the chosen files out of the input (so the form does not send them again),
// sends them one after another to `uploadUrl` with XMLHttpRequest (its upload progress events are
// the bytes really sent; fetch with a streamed body gives none in Chromium over HTTP/1.1), and
// `PhotoUploads` lists them: a preview, the bytes sent of each and of all, and a refused file's
// reason, while the others go on. The endpoint answers `{"photo": {"id", …}}` (201) or
// `{"errors": {"message"}}`.

/** What the endpoint answered for a photo it kept. */
export type UploadedPhoto = {
  id: number;
  key: string;
  width: number;
  height: number;
  widths: number[];
  placeholder: string;
};

export type UploadItem = {
  /** This page's own id for the item (a React key). */
  key: string;
  file: File;
  /** An object URL of the file, for its preview; null when the browser cannot show it. */
  preview: string | null;
  /** Bytes sent so far, of `total`. */
  sent: number;
  total: number;
  state: "waiting" | "sending" | "sent" | "refused";
  /** Why it was refused (its own check, the server's answer, or the connection). */
  reason?: string;
  /** Refused by the page's own check (not an image, too big): it stays in the file control, so the form's own validation names it too. */
  local?: true;
  /** The server's photo, once sent. */
  photo?: UploadedPhoto;
};

export const UPLOAD_MESSAGES = {
  tooMany: (max: number) =>
    `Not added: a moment can have at most ${max === 1 ? "1 more photo" : `${max} more photos`} here.`,
  connection: "It could not be sent (the connection failed). Remove it and choose it again.",
  server: (status: number) => `It could not be sent (the server answered ${status}). Remove it and choose it again.`,
  sending: "Sending your photos first…",
  notAllSent:
    "Some photos could not be sent (see why below): remove them, or choose them again, then send the form again.",
} as const;

let nextKey = 0;

type Sent = { photo: UploadedPhoto } | { reason: string } | { stopped: true };

/**
 * Sends one file as `image` to `url`, telling its progress; `done` resolves with the photo, the
 * reason, or `stopped` after `stop()` (the photo was removed while on its way: the rest of its bytes
 * are not sent).
 */
function send(url: string, file: File, progress: (sent: number, total: number) => void) {
  const xhr = new XMLHttpRequest();
  const done = new Promise<Sent>((resolve) => {
    xhr.open("POST", url);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => progress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onabort = () => resolve({ stopped: true });
    xhr.onerror = () => resolve({ reason: UPLOAD_MESSAGES.connection });
    xhr.onload = () => {
      let body: { photo?: UploadedPhoto; errors?: { message?: string } } = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON (a proxy's page): the status says enough
      }
      if (xhr.status === 201 && body.photo) resolve({ photo: body.photo });
      else resolve({ reason: body.errors?.message ?? UPLOAD_MESSAGES.server(xhr.status) });
    };
    const form = new FormData();
    form.append("image", file);
    xhr.send(form);
  });
  return { done, stop: () => xhr.abort() };
}

/**
 * The upload queue: `add` the files chosen (beyond `max` they are refused at once), `remove` one.
 * One file is sent at a time, in the order chosen.
 */
export function usePhotoUploads(uploadUrl: string, max: number) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const update = useCallback(
    (key: string, change: Partial<UploadItem>) =>
      setItems((list) => list.map((it) => (it.key === key ? { ...it, ...change } : it))),
    [],
  );
  // the file on its way, if any
  const sending = useRef<{ key: string; stop(): void } | null>(null);
  // the queue: whenever nothing is on its way, the first waiting file goes
  useEffect(() => {
    if (sending.current) return;
    const next = items.find((it) => it.state === "waiting");
    if (!next) return;
    update(next.key, { state: "sending" });
    const upload = send(uploadUrl, next.file, (sent, total) => update(next.key, { sent, total }));
    sending.current = { key: next.key, stop: upload.stop };
    void upload.done.then((answer) => {
      sending.current = null;
      // removed on its way: the next one goes
      if ("stopped" in answer) setItems((list) => [...list]);
      else if ("photo" in answer)
        setItems((list) =>
          list.map((it) => (it.key === next.key ? { ...it, state: "sent", sent: it.total, photo: answer.photo } : it)),
        );
      else {
        // not a photo after all: no preview to show
        if (next.preview) URL.revokeObjectURL(next.preview);
        update(next.key, { state: "refused", reason: answer.reason, preview: null });
      }
    });
  }, [items, update, uploadUrl]);
  // previews are released when their item goes and when the page does; a file on its way stops
  const previews = useRef(new Set<string>());
  useEffect(
    () => () => {
      for (const url of previews.current) URL.revokeObjectURL(url);
      sending.current?.stop();
    },
    [],
  );

  const add = useCallback(
    (files: File[]) =>
      setItems((all) => {
        // the control now holds this choice only: the files refused from the last one leave it
        const list = all.filter((it) => !it.local);
        let room = max - list.filter((it) => it.state !== "refused").length;
        const added = files.map((file): UploadItem => {
          const problem = chosenFileProblem(file);
          const tooMany = !problem && room <= 0;
          if (!problem && !tooMany) room--;
          const preview = problem || tooMany ? null : URL.createObjectURL(file);
          if (preview) previews.current.add(preview);
          const reason = problem ?? (tooMany ? UPLOAD_MESSAGES.tooMany(max) : undefined);
          return {
            key: `upload-${++nextKey}`,
            file,
            preview,
            sent: 0,
            total: file.size,
            state: reason ? "refused" : "waiting",
            ...(reason ? { reason } : {}),
            ...(problem ? { local: true as const } : {}),
          };
        });
        return [...list, ...added];
      }),
    [max],
  );
  const remove = useCallback((key: string) => {
    if (sending.current?.key === key) sending.current.stop();
    setItems((list) => {
      const gone = list.find((it) => it.key === key);
      if (gone?.preview) {
        URL.revokeObjectURL(gone.preview);
        previews.current.delete(gone.preview);
      }
      return list.filter((it) => it.key !== key);
    });
  }, []);
  const busy = items.some((it) => it.state === "waiting" || it.state === "sending");
  return { items, add, remove, busy };
}

export type PhotoUploadsProps = {
  /** The plain file control's props: id, name (its files go with the form without JavaScript), aria. */
  inputProps: InputHTMLAttributes<HTMLInputElement> & { id: string; name: string };
  /** Where each photo is sent with JavaScript (POST, one `image`). */
  uploadUrl: string;
  /** How many more photos may be chosen. */
  max: number;
  /** The photo's number as the page counts them, from its place among the items (0-based). */
  numberOf?: (index: number) => number;
  /** More fields of an item (e.g. its alt text), once `item` is known. */
  renderItem?: (item: UploadItem, n: number) => ReactNode;
  /** Told whenever the items change. */
  onChange?: (items: UploadItem[]) => void;
  /**
   * The hidden field that names the photos sent (their ids, comma-separated), after `listBefore`
   * (photos the page had already): rendered with the items, so a submit always sees them all.
   */
  listName?: string;
  listBefore?: number[];
};

const percent = (sent: number, total: number) => (total ? Math.min(100, Math.floor((sent * 100) / total)) : 100);

/**
 * The file control and, with JavaScript, the list of the photos chosen with their progress. A
 * submit while photos are on their way waits for them, then goes on by itself (unless one was
 * refused meanwhile: then the page says so and the parent decides).
 */
export function PhotoUploads({
  inputProps,
  uploadUrl,
  max,
  numberOf = (i) => i + 1,
  renderItem,
  onChange,
  listName,
  listBefore = [],
}: PhotoUploadsProps) {
  const hydrated = useHydrated();
  const { items, add, remove, busy } = usePhotoUploads(uploadUrl, max);
  const input = useRef<HTMLInputElement>(null);
  const [waiting, setWaiting] = useState<{ submitter: HTMLElement | null; refused: number } | null>(null);
  const [notAllSent, setNotAllSent] = useState(false);
  useEffect(() => onChange?.(items), [items, onChange]);
  const refusedCount = items.filter((it) => it.state === "refused" && !it.local).length;
  // a submit while photos are on their way is held (before the page's handlers see it) until they are sent
  useEffect(() => {
    const form = input.current?.form;
    if (!form || !busy) return;
    const hold = (e: SubmitEvent) => {
      e.preventDefault();
      // the page's own handlers (validation, sending) run on the submit that follows
      e.stopPropagation();
      setNotAllSent(false);
      setWaiting({ submitter: e.submitter, refused: refusedCount });
    };
    form.addEventListener("submit", hold);
    return () => form.removeEventListener("submit", hold);
  }, [busy, refusedCount]);
  useEffect(() => {
    if (busy || !waiting) return;
    setWaiting(null);
    if (refusedCount > waiting.refused) setNotAllSent(true);
    else input.current?.form?.requestSubmit(waiting.submitter ?? undefined);
  }, [busy, waiting, refusedCount]);
  // the files the page's own check refused stay in the control (the form's validation names them)
  const touched = useRef(false);
  // files chosen before the page's scripts ran (a slow phone): their change event went unheard
  useEffect(() => {
    const files = Array.from(input.current?.files ?? []);
    if (!hydrated || !files.length || touched.current) return;
    touched.current = true;
    add(files);
  }, [hydrated, add]);
  useEffect(() => {
    if (!input.current || !touched.current) return;
    const keep = new DataTransfer();
    for (const it of items) if (it.local) keep.items.add(it.file);
    input.current.files = keep.files;
  }, [items]);
  const going = items.filter((it) => it.state !== "refused");
  const sentBytes = going.reduce((n, it) => n + it.sent, 0);
  const allBytes = going.reduce((n, it) => n + it.total, 0);
  const sentCount = going.filter((it) => it.state === "sent").length;
  const statusId = `${inputProps.id}-uploads`;
  const list = [...listBefore, ...items.flatMap((it) => (it.photo ? [it.photo.id] : []))];
  return (
    <div className="photo-uploads">
      {listName ? <input type="hidden" name={listName} value={list.join(",")} /> : null}
      <input
        {...inputProps}
        ref={input}
        type="file"
        multiple
        accept="image/*"
        className="picture-form__file"
        aria-describedby={
          [inputProps["aria-describedby"], hydrated && items.length ? statusId : null].filter(Boolean).join(" ") ||
          undefined
        }
        onChange={(e) => {
          if (!hydrated) return;
          // the files are sent from here: the form does not send them again (see the effect above)
          touched.current = true;
          add(Array.from(e.currentTarget.files ?? []));
        }}
      />
      {hydrated ? (
        <p id={statusId} className="photo-uploads__total" role="status">
          {going.length
            ? `${sentCount} of ${going.length} ${going.length === 1 ? "photo" : "photos"} sent (${percent(sentBytes, allBytes)}%)`
            : ""}
          {waiting ? ` ${UPLOAD_MESSAGES.sending}` : ""}
          {notAllSent ? ` ${UPLOAD_MESSAGES.notAllSent}` : ""}
        </p>
      ) : null}
      {going.length ? (
        <progress className="photo-uploads__bar" max={allBytes || 1} value={sentBytes} aria-label="All photos" />
      ) : null}
      {items.length ? (
        <ol className="photo-uploads__list">
          {items.map((it) => {
            const n = numberOf(going.indexOf(it));
            return (
              <li key={it.key} className={"photo-upload photo-upload--" + it.state}>
                {it.preview ? (
                  <img src={it.preview} alt={`Preview ${n} (${it.file.name})`} className="photo-upload__img" />
                ) : null}
                <div className="photo-upload__fields">
                  <p className="photo-upload__name">{it.file.name}</p>
                  {it.state === "refused" ? (
                    <p className="photo-upload__reason">
                      <span className="visually-hidden">Error: </span>
                      {it.reason}
                    </p>
                  ) : (
                    <>
                      <progress max={it.total || 1} value={it.sent} aria-label={`Photo ${n} (${it.file.name})`} />
                      <span className="photo-upload__state">
                        {it.state === "sent"
                          ? "Sent"
                          : it.state === "sending"
                            ? `${percent(it.sent, it.total)}% sent`
                            : "Waiting"}
                      </span>
                    </>
                  )}
                  {it.state !== "refused" && renderItem ? renderItem(it, n) : null}
                  <button
                    type="button"
                    className="button button--secondary button--small"
                    onClick={() => {
                      touched.current = true;
                      remove(it.key);
                    }}
                  >
                    Remove {it.state === "refused" ? it.file.name : `photo ${n}`}
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
      ) : null}
    </div>
  );
}
