import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Photo } from "./photo";
import type { Photo as PhotoData } from "~/images/photo";

const photo: PhotoData = {
  key: "AbCdEfGhIjKlMnOpQrStUvWx",
  width: 1280,
  height: 960,
  widths: [160, 320, 640, 1280],
  placeholder: "data:image/webp;base64,UklGRg==",
};

describe("<Photo>", () => {
  it("renders a responsive, lazy img with size, srcset and placeholder", () => {
    const html = renderToStaticMarkup(
      <Photo photo={photo} alt="Elsa's photo" sizes="(max-width: 600px) 100vw, 320px" className="kid-photo" />,
    );
    expect(html).toContain(`src="/images/${photo.key}/640.webp"`);
    expect(html).toContain(
      `srcSet="/images/${photo.key}/160.webp 160w, /images/${photo.key}/320.webp 320w, /images/${photo.key}/640.webp 640w, /images/${photo.key}/1280.webp 1280w"`,
    );
    expect(html).toContain('sizes="(max-width: 600px) 100vw, 320px"');
    expect(html).toContain('width="1280"');
    expect(html).toContain('height="960"');
    expect(html).toContain('alt="Elsa&#x27;s photo"');
    expect(html).toContain('loading="lazy"');
    expect(html).toContain('decoding="async"');
    expect(html).toContain('class="photo-ph kid-photo"');
    expect(html).toContain(`background-image:url(&quot;${photo.placeholder}&quot;)`);
    expect(html).not.toContain("fetchpriority");
  });

  it("priority photos load eagerly with high priority", () => {
    const html = renderToStaticMarkup(<Photo photo={photo} alt="Moment" priority />);
    expect(html).toContain('loading="eager"');
    expect(html).toContain('fetchPriority="high"');
  });

  it("small photos use what exists", () => {
    const small = { ...photo, width: 500, height: 300, widths: [160, 320, 500] };
    const html = renderToStaticMarkup(<Photo photo={small} alt="x" />);
    expect(html).toContain(`src="/images/${photo.key}/320.webp"`);
    expect(html).toContain("500.webp 500w");
    expect(html).not.toContain("1280");
  });

  it("a photo shown at a fixed size offers no width beyond the first that covers a 3x screen", () => {
    const avatar = renderToStaticMarkup(<Photo photo={photo} alt="x" sizes="40px" />);
    expect(avatar).toContain(`src="/images/${photo.key}/160.webp"`);
    expect(avatar).not.toContain("srcSet");
    expect(avatar).not.toContain("sizes");
    const medium = renderToStaticMarkup(<Photo photo={photo} alt="x" sizes="120px" />);
    expect(medium).toContain(`src="/images/${photo.key}/320.webp"`);
    expect(medium).toContain(
      `srcSet="/images/${photo.key}/160.webp 160w, /images/${photo.key}/320.webp 320w, /images/${photo.key}/640.webp 640w"`,
    );
    expect(medium).toContain('sizes="120px"');
    // a small stored photo: what exists
    const small = { ...photo, width: 200, height: 150, widths: [160, 200] };
    expect(renderToStaticMarkup(<Photo photo={small} alt="x" sizes="160px" />)).toContain("200.webp 200w");
  });

  it("a list photo with minWidth offers no smaller width (the largest stored when none reaches it)", () => {
    const html = renderToStaticMarkup(
      <Photo photo={photo} alt="Moment" sizes="(max-width: 42rem) 100vw, 640px" minWidth={640} />,
    );
    expect(html).toContain(`src="/images/${photo.key}/640.webp"`);
    expect(html).toContain(`srcSet="/images/${photo.key}/640.webp 640w, /images/${photo.key}/1280.webp 1280w"`);
    const small = renderToStaticMarkup(
      <Photo photo={{ ...photo, widths: [160, 320] }} alt="Moment" sizes="100vw" minWidth={640} />,
    );
    expect(small).toContain(`src="/images/${photo.key}/320.webp"`);
    expect(small).not.toContain("srcSet");
  });

  it("only a base64 data URI is used as the placeholder", () => {
    const odd = { ...photo, placeholder: 'data:image/webp;base64,AAA"); background: url(https://evil.example/x' };
    expect(renderToStaticMarkup(<Photo photo={odd} alt="x" />)).not.toContain("background");
    expect(renderToStaticMarkup(<Photo photo={{ ...photo, placeholder: "" }} alt="x" />)).not.toContain("background");
  });

  it("decorative photos have an empty alt", () => {
    expect(renderToStaticMarkup(<Photo photo={photo} alt="Elsa" decorative />)).toContain('alt=""');
  });

  it("no photo: an icon with the alt as its accessible name, or hidden when decorative", () => {
    const named = renderToStaticMarkup(<Photo photo={null} alt="Elsa's photo" icon="child" className="avatar" />);
    expect(named).toMatch(/^<span /);
    expect(named).toContain('role="img"');
    expect(named).toContain('aria-label="Elsa&#x27;s photo"');
    expect(named).toContain('class="photo-icon photo-icon--child avatar"');
    expect(named).not.toContain("<img");

    const hidden = renderToStaticMarkup(<Photo photo={null} alt="Elsa" decorative />);
    expect(hidden).toContain('aria-hidden="true"');
    expect(hidden).not.toContain("aria-label");
    expect(hidden).not.toContain('role="img"');
  });
});
