// The file names of the export (docs/decisions/0023-streamed-export.md): readable, safe on every
// system, each once.

/** Turns a title into a file name part: no path separators, reserved or control characters. */
export function safeName(text: string, max = 80): string {
  const cleaned = text
    .normalize("NFC")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are replaced on purpose
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]/g, " ")
    .replace(/\s+/g, " ")
    .replace(/^[.\s]+/, "")
    .replace(/[. ]+$/, "")
    .slice(0, max)
    .trim();
  return cleaned || "untitled";
}

/** Hands out file names under `folder`, each once (a second "x.webp" becomes "x (2).webp"). */
export class FileNames {
  private used = new Set<string>();
  take(folder: string, base: string, ext: string): string {
    for (let n = 1; ; n++) {
      const name = `${folder}${base}${n === 1 ? "" : ` (${n})`}${ext}`;
      if (!this.used.has(name.toLowerCase())) {
        this.used.add(name.toLowerCase());
        return name;
      }
    }
  }
}
