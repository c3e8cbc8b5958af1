import { useRef, useState } from "react";

export const EXPORT_PATH = "/settings/export";

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/**
 * "Download all my data". Without JavaScript a plain link: the browser downloads the ZIP as the
 * server streams it. With JavaScript the same URL is fetched here so the page can say how far it
 * has got (megabytes received; the total is not known until the end), then handed to the browser
 * as a file. docs/spec.md §2 "Your data".
 */
export function ExportLink() {
  const [state, setState] = useState<{ phase: "idle" | "running" | "done" | "failed"; bytes: number }>({
    phase: "idle",
    bytes: 0,
  });
  const busy = useRef(false);

  async function download(e: React.MouseEvent<HTMLAnchorElement>) {
    if (typeof ReadableStream === "undefined" || e.metaKey || e.ctrlKey || e.shiftKey) return; // let the browser do it
    e.preventDefault();
    if (busy.current) return;
    busy.current = true;
    setState({ phase: "running", bytes: 0 });
    try {
      const response = await fetch(EXPORT_PATH, { credentials: "same-origin" });
      if (!response.ok || !response.body) throw new Error(`${response.status}`);
      const reader = response.body.getReader();
      const chunks: BlobPart[] = [];
      let bytes = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        bytes += value.byteLength;
        setState({ phase: "running", bytes });
      }
      const name =
        /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "")?.[1] ?? "sweet-moments-export.zip";
      const url = URL.createObjectURL(new Blob(chunks, { type: "application/zip" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState({ phase: "done", bytes });
    } catch {
      setState({ phase: "failed", bytes: 0 });
    } finally {
      busy.current = false;
    }
  }

  return (
    <div className="export">
      <p>
        <a
          href={EXPORT_PATH}
          className="button button--primary"
          download
          onClick={download}
          aria-disabled={state.phase === "running" || undefined}
        >
          Download all my data
        </a>
      </p>
      <div role="status" className="export__status">
        {state.phase === "running" ? (
          <>
            <progress aria-label="Download progress" />
            <span> Preparing your ZIP file: {megabytes(state.bytes)} so far…</span>
          </>
        ) : state.phase === "done" ? (
          <span>Done: {megabytes(state.bytes)}. Your browser has saved the ZIP file.</span>
        ) : state.phase === "failed" ? (
          <span className="field-error">The download did not finish. Please try again.</span>
        ) : null}
      </div>
    </div>
  );
}
