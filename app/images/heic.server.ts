import fsp from "node:fs/promises";

// HEIC/HEIF photos (iPhones) decoded by libheif compiled to WebAssembly (heic-decode over
// libheif-js), because sharp's prebuilt libvips has no HEVC decoder. Only the pixel decode is done
// here: the caller (app/images/process.server.ts) has already checked the header (real HEIF, HEVC,
// at most MAX_PIXELS) with sharp, and hands the RGBA pixels to the same resize/encode steps as
// every other photo, so the limits, the stripping (raw pixels carry no metadata) and the
// derivatives are the same. docs/decisions/0029-heic-photos.md.
//
// libheif is loaded on the first HEIC photo, not at start: its WebAssembly module and bundle take
// about 20 MB in every process that loads it, and most processes never see a HEIC.

export type RawImage = { data: Buffer; width: number; height: number; channels: 4 };

/** The primary image of the HEIC file at `filePath`, upright (libheif applies its rotations), or null when it cannot be decoded. */
export async function decodeHeic(filePath: string): Promise<RawImage | null> {
  const bytes = await fsp.readFile(filePath);
  try {
    const { default: decode } = await import("heic-decode");
    const image = await decode({ buffer: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    if (!(image.width > 0 && image.height > 0) || image.data.length !== image.width * image.height * 4) return null;
    return {
      data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength),
      width: image.width,
      height: image.height,
      channels: 4,
    };
  } catch {
    return null;
  }
}
