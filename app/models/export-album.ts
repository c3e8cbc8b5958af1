import { ageText, formatCalendarDate } from "~/lib/dates";
import { momentPhotoCounts, type ExportData, type ExportKid } from "./export.server";

// The offline album of the export (docs/spec.md §2 "Your data"): static HTML pages that open from
// the unzipped folder with no server and no JavaScript: relative links only, CSS inline, every
// text escaped. `index.html` lists the kids; `kids/<name>.html` shows a kid's moments, newest
// first by the moment's own date (as the kid's page), with the kid's age on that day, the
// milestone, the photos, likes and comments.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A relative URL to a file of the export (each path segment encoded: names hold spaces). */
function href(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#faf7fb;color:#241f28;line-height:1.5}
main{max-width:46rem;margin:0 auto;padding:1rem}
h1{margin:.5rem 0 1rem}
a{color:#6b2fa3}
.kids{list-style:none;padding:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr))}
.kids li,.moment{background:#fff;border:1px solid #e3dbe9;border-radius:12px;padding:1rem}
.kids img{width:100%;height:10rem;object-fit:cover;border-radius:8px}
.moment{margin-bottom:1.5rem}
.moment img,.moment video{max-width:100%;height:auto;border-radius:8px}
.photo-grid{display:grid;gap:.5rem;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr))}
.photo-grid img{width:100%;aspect-ratio:1;object-fit:cover}
.meta{color:#5b5363;font-size:.9rem;margin:.25rem 0}
.milestone{display:inline-block;background:#f1e6fa;color:#4b1f78;border-radius:999px;padding:.1rem .6rem;font-size:.85rem;margin:0}
.content{white-space:pre-wrap}
.comments{list-style:none;padding:0;border-top:1px solid #e3dbe9;margin-top:.75rem}
.comments li{padding:.4rem 0}
footer{color:#5b5363;font-size:.85rem;text-align:center;padding:2rem 1rem}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${body}
</main>
<footer>Exported from Sweet Moments</footer>
</body>
</html>
`;
}

/** The album page of one kid: where it sits in the export. */
export function kidPagePath(kid: ExportKid, taken: Set<string>): string {
  const base =
    kid.name
      .replace(/[^A-Za-z0-9_-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .toLowerCase() || "kid";
  for (let n = 1; ; n++) {
    const path = `kids/${base}${n === 1 ? "" : `-${n}`}.html`;
    if (!taken.has(path)) {
      taken.add(path);
      return path;
    }
  }
}

/** What the export's photos are, in plain words (the album's first page says it). */
export function photosHeld(data: ExportData): string {
  const { full, smaller } = momentPhotoCounts(data);
  const n = (count: number, what: string) => `${count} ${what}${count === 1 ? "" : "s"}`;
  const parts = [`${n(full, "moment photo")} at full size (JPEG, location and camera details removed).`];
  if (smaller)
    parts.push(
      `${n(smaller, "moment photo")} added before full-size copies were kept: at the largest size stored, 1280 pixels wide at most (WebP).`,
    );
  parts.push("Kids' photos and profile pictures: at the largest size stored (WebP).");
  const clips = data.kids.reduce((sum, k) => sum + k.moments.reduce((s, m) => s + m.clips.length, 0), 0);
  if (clips) parts.push(`${n(clips, "clip")} as 720p MP4 with their captions, location and device details removed.`);
  return parts.join(" ");
}

export function indexPage(data: ExportData, kidPages: Map<number, string>): string {
  const who = [data.account.first_name, data.account.last_name].filter(Boolean).join(" ") || data.account.username;
  const kids = data.kids.length
    ? `<ul class="kids">${data.kids
        .map(
          (k) =>
            `<li><a href="${href(kidPages.get(k.id)!)}">${
              k.photo ? `<img src="${href(k.photo.file)}" alt="">` : ""
            }<strong>${escapeHtml(k.name)}</strong></a><p class="meta">${escapeHtml(ageText(k.birth_date, data.today))}</p><p class="meta">${k.moments.length} moment${k.moments.length === 1 ? "" : "s"}</p></li>`,
        )
        .join("\n")}</ul>`
    : "<p>No kids yet.</p>";
  return page(
    `${who}'s Sweet Moments`,
    `<h1>${escapeHtml(who)}'s Sweet Moments</h1>
<p class="meta">Exported on ${escapeHtml(formatCalendarDate(data.today))}. Your data is also in <a href="data.json">data.json</a>.</p>
<p class="meta">${escapeHtml(photosHeld(data))}</p>
<h2>Kids</h2>
${kids}`,
  );
}

export function kidPage(kid: ExportKid, data: ExportData): string {
  const up = (file: string) => `../${href(file)}`;
  const moments = kid.moments.length
    ? kid.moments
        .map((m) => {
          const age = ageText(kid.birth_date, m.taken_on);
          // several photos: a grid (docs/decisions/0030-several-photos-per-moment.md), each with its alt text
          const imgs = m.photos.map(
            (p) =>
              `<img src="${up(p.file)}" alt="${escapeHtml(p.alt ?? m.title)}" width="${(p.photo.original ?? p.photo).width}" height="${(p.photo.original ?? p.photo).height}" loading="lazy">`,
          );
          const photos =
            m.photos.length > 1
              ? `<p class="photo-grid">${imgs.join("")}</p>`
              : imgs.map((i) => `<p>${i}</p>`).join("");
          // clips play from the file beside the page (docs/decisions/0064-video-clips.md)
          const clips = m.clips
            .map(
              (c) =>
                `<figure><video controls preload="none" src="${up(c.file)}"${c.width ? ` width="${c.width}" height="${c.height}"` : ""}>${
                  c.captions
                    ? `<track kind="captions" src="${up(c.captions.file)}" srclang="en" label="Captions" default>`
                    : ""
                }<a href="${up(c.file)}">${escapeHtml(c.description)}</a></video><figcaption>Video: ${escapeHtml(c.description)}</figcaption></figure>`,
            )
            .join("");
          const likes = m.likes.length
            ? `<p class="meta">Liked by ${m.likes.map((l) => escapeHtml(l.by)).join(", ")}</p>`
            : "";
          const comments = m.comments.length
            ? `<ul class="comments" aria-label="Comments">${m.comments
                .map((c) => `<li><strong>${escapeHtml(c.by)}</strong>: ${escapeHtml(c.comment)}</li>`)
                .join("")}</ul>`
            : "";
          const milestone = m.milestone ? `<p class="milestone">Milestone: ${escapeHtml(m.milestone)}</p>` : "";
          return `<article class="moment"><h2>${escapeHtml(m.title)}</h2>${milestone}<p class="meta">${escapeHtml(formatCalendarDate(m.taken_on))}${
            age ? ` · ${escapeHtml(kid.name)} was ${escapeHtml(age)}` : ""
          }</p>${photos}${clips}<p class="content">${escapeHtml(m.content)}</p>${likes}${comments}</article>`;
        })
        .join("\n")
    : "<p>No moments yet.</p>";
  return page(
    `${kid.name} – Sweet Moments`,
    `<p><a href="../index.html">All kids</a></p>
<h1>${escapeHtml(kid.name)}</h1>
<p class="meta">Born ${escapeHtml(formatCalendarDate(kid.birth_date))}${
      ageText(kid.birth_date, data.today) ? ` · ${escapeHtml(ageText(kid.birth_date, data.today))} today` : ""
    }</p>
${kid.photo ? `<p><img src="${up(kid.photo.file)}" alt="${escapeHtml(kid.name)}" style="max-width:16rem"></p>` : ""}
${kid.role === "co-parent" ? `<p class="meta">You co-parent ${escapeHtml(kid.name)}: here are the moments you posted. The other parent's are in their own export.</p>` : ""}
${moments}`,
  );
}
