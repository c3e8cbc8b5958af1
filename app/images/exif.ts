// The date a photo was taken, from its EXIF block (docs/decisions/0028-moment-dates-and-feed.md).
// A small, bounds-checked reader of the TIFF structure inside EXIF: IFD0 → the Exif sub-IFD
// (tag 0x8769) → DateTimeOriginal (0x9003), else DateTimeDigitized (0x9004), else IFD0's DateTime
// (0x0132), each with its offset from UTC when the camera wrote one (OffsetTimeOriginal 0x9011,
// OffsetTimeDigitized 0x9012, OffsetTime 0x9010). Every offset is checked against the buffer; anything malformed answers null. Pure: no
// node imports (the upload pipeline reads the buffer with sharp before the metadata is dropped).

const TAG_EXIF_IFD = 0x8769;
const TAG_DATE_TIME_ORIGINAL = 0x9003;
const TAG_DATE_TIME_DIGITIZED = 0x9004;
const TAG_DATE_TIME = 0x0132;
const TAG_OFFSET_TIME = 0x9010;
const TAG_OFFSET_TIME_ORIGINAL = 0x9011;
const TAG_OFFSET_TIME_DIGITIZED = 0x9012;
const TYPE_ASCII = 2;
const TYPE_LONG = 4;
const MAX_ENTRIES = 1000;

type Reader = { u16(at: number): number | null; u32(at: number): number | null; length: number; bytes: Uint8Array };

function reader(bytes: Uint8Array, little: boolean): Reader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    bytes,
    length: bytes.length,
    u16: (at) => (at >= 0 && at + 2 <= bytes.length ? view.getUint16(at, little) : null),
    u32: (at) => (at >= 0 && at + 4 <= bytes.length ? view.getUint32(at, little) : null),
  };
}

type Entry = { type: number; count: number; valueAt: number };

/** The entries of the IFD at `offset`, by tag. */
function readIfd(r: Reader, offset: number): Map<number, Entry> | null {
  const count = r.u16(offset);
  if (count === null || count > MAX_ENTRIES) return null;
  const out = new Map<number, Entry>();
  for (let i = 0; i < count; i++) {
    const at = offset + 2 + i * 12;
    const tag = r.u16(at);
    const type = r.u16(at + 2);
    const n = r.u32(at + 4);
    if (tag === null || type === null || n === null) return out;
    // values of more than 4 bytes live at the offset the entry holds
    const size = type === TYPE_ASCII ? n : 4;
    const valueAt = size <= 4 ? at + 8 : r.u32(at + 8);
    if (valueAt === null) continue;
    out.set(tag, { type, count: n, valueAt });
  }
  return out;
}

const EXIF_DATE = /^(\d{4}):(\d{2}):(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/;
const EXIF_OFFSET = /^([+-])(\d{2}):(\d{2})$/;

/** The ASCII text of an entry (up to its first NUL), trimmed, or null. */
function textOf(r: Reader, entry: Entry | undefined, max = 64): string | null {
  if (!entry || entry.type !== TYPE_ASCII || entry.count < 1 || entry.count > max) return null;
  if (entry.valueAt + entry.count > r.length) return null;
  let text = "";
  for (let i = 0; i < entry.count; i++) {
    const c = r.bytes[entry.valueAt + i]!;
    if (c === 0) break;
    text += String.fromCharCode(c);
  }
  return text.trim();
}

/** When a photo was taken, as its camera wrote it. */
export type ExifTaken = {
  /** "YYYY-MM-DD" */
  date: string;
  /** "HH:MM:SS" on the camera's clock, or null when only a date is written */
  time: string | null;
  /** The camera's offset from UTC ("+02:00"; EXIF 2.31's OffsetTime tags), or null (most cameras). */
  offset: string | null;
};

/** An EXIF date entry ("YYYY:MM:DD HH:MM:SS"), or null. */
function takenOf(r: Reader, entry: Entry | undefined, offsetEntry: Entry | undefined): ExifTaken | null {
  const text = textOf(r, entry);
  if (!text || text.length < 10) return null;
  const m = EXIF_DATE.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1800 || month < 1 || month > 12 || day < 1 || day > 31) return null;
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCMonth() !== month - 1) return null; // 31 April and the like
  const time =
    m[4] !== undefined && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6] ?? 0) < 60
      ? `${m[4]}:${m[5]}:${m[6] ?? "00"}`
      : null;
  const offsetText = textOf(r, offsetEntry, 16);
  const o = offsetText ? EXIF_OFFSET.exec(offsetText) : null;
  const offset = o && time && Number(o[2]) <= 14 && Number(o[3]) < 60 ? offsetText : null;
  return { date: `${m[1]}-${m[2]}-${m[3]}`, time, offset };
}

/**
 * The calendar date the photo was taken, as its camera wrote it (local time, no zone: the date is
 * taken as written), or null when there is none or the block is not one we can read. `exif`: the
 * raw EXIF block as sharp's `metadata().exif` gives it ("Exif\0\0" then a TIFF header), or a bare
 * TIFF header.
 */
export function exifDateTaken(exif: Uint8Array | null | undefined): string | null {
  return exifTaken(exif)?.date ?? null;
}

/**
 * When the photo was taken: DateTimeOriginal (with OffsetTimeOriginal), else DateTimeDigitized
 * (with OffsetTimeDigitized), else IFD0's DateTime (with OffsetTime); null when there is none or
 * the block is not one we can read.
 */
export function exifTaken(exif: Uint8Array | null | undefined): ExifTaken | null {
  if (!exif || exif.length < 8) return null;
  let start = 0;
  if (exif.length >= 6 && String.fromCharCode(...exif.subarray(0, 4)) === "Exif" && exif[4] === 0 && exif[5] === 0)
    start = 6;
  const tiff = exif.subarray(start);
  if (tiff.length < 8) return null;
  const order = String.fromCharCode(tiff[0]!, tiff[1]!);
  if (order !== "II" && order !== "MM") return null;
  const r = reader(tiff, order === "II");
  if (r.u16(2) !== 42) return null;
  const ifd0At = r.u32(4);
  if (ifd0At === null) return null;
  const ifd0 = readIfd(r, ifd0At);
  if (!ifd0) return null;
  const pointer = ifd0.get(TAG_EXIF_IFD);
  const subAt = pointer && pointer.type === TYPE_LONG ? r.u32(pointer.valueAt) : null;
  const sub = subAt !== null && subAt !== ifd0At ? readIfd(r, subAt) : null;
  return (
    takenOf(r, sub?.get(TAG_DATE_TIME_ORIGINAL), sub?.get(TAG_OFFSET_TIME_ORIGINAL)) ??
    takenOf(r, sub?.get(TAG_DATE_TIME_DIGITIZED), sub?.get(TAG_OFFSET_TIME_DIGITIZED)) ??
    takenOf(r, ifd0.get(TAG_DATE_TIME), sub?.get(TAG_OFFSET_TIME))
  );
}
