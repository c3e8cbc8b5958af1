// Upload limits and the messages that name them, in one place: the streaming multipart parser and
// the image checks on the server, the body reader, the forms' schemas (browser and server alike),
// and the pages' hints all read them from here. Browser code imports this module, so it stays
// plain data: no `.server` suffix, no node imports. See docs/decisions/0013-layers.md.

const MB = 1024 * 1024;

/** Largest accepted photo, in megabytes (as the hints and messages say it) and in bytes. */
export const MAX_IMAGE_MB = 15;
export const MAX_IMAGE_BYTES = MAX_IMAGE_MB * MB;

/** Most pixels (width × height) of an accepted photo. */
export const MAX_PIXELS = 50_000_000;

/**
 * A moment photo's full-size copy is at most this many pixels on its long side
 * (docs/decisions/0063-full-size-originals.md): 12 MP and 24 MP phone photos (4032 × 3024,
 * 5712 × 4284) keep every pixel; larger ones are scaled to fit.
 */
export const ORIGINAL_MAX_EDGE = 6000;

/** Most photos of one moment (docs/decisions/0030-several-photos-per-moment.md). */
export const MAX_PHOTOS = 10;

/** Largest body without a photo: a JSON or urlencoded body, or one text field of a multipart one (/api). */
export const MAX_TEXT_BODY_BYTES = 1 * MB;

/** Limits of one multipart request. All sizes in bytes. */
export type MultipartLimits = {
  /** Largest accepted file; bigger files give the `image` error `MULTIPART_MESSAGES.imageTooBig`. */
  maxFileBytes: number;
  /**
   * Largest accepted clip (a file part named `video`), or 0: the form takes no clips (its `video`
   * parts are read and thrown away). Bigger clips give the `video` error `VIDEO_MESSAGES.tooBig`.
   */
  maxVideoBytes?: number;
  /** Most parts (fields + files) read; more give a request-level error. */
  maxParts: number;
  /** Longest text field value; longer gives an error on that field. */
  maxFieldBytes: number;
  /** Most body bytes parsed; beyond this the rest is read and thrown away, with an error. */
  maxBodyBytes: number;
  /**
   * Most body bytes read at all. Up to here an over-limit body is drained so the browser gets
   * our answer instead of a reset connection; past it we stop reading (abusive clients only).
   */
  maxDrainBytes: number;
};

export const UPLOAD_LIMITS: Readonly<MultipartLimits> = Object.freeze({
  maxFileBytes: MAX_IMAGE_BYTES,
  // a moment's form: its text fields, up to MAX_PHOTOS photo slots with their alt texts, and
  // the place, alt text and remove box of each photo it has
  maxParts: 80,
  maxFieldBytes: 100 * 1024,
  // the photos of one moment together (each still at most MAX_IMAGE_BYTES)
  maxBodyBytes: 64 * MB,
  maxDrainBytes: 160 * MB,
});

/**
 * Limits of one "Add photos" request (docs/decisions/0065-drafts.md): up to `maxFiles`
 * (ADD_PHOTOS_MAX_FILES) photos of up to MAX_IMAGE_BYTES each, streamed to temporary files one
 * after another like a moment's.
 */
export function addPhotosLimits(maxFiles: number): MultipartLimits {
  return {
    ...UPLOAD_LIMITS,
    maxParts: maxFiles + 20,
    maxBodyBytes: maxFiles * MAX_IMAGE_BYTES + MB,
    maxDrainBytes: maxFiles * MAX_IMAGE_BYTES + 16 * MB,
  };
}

/** The form field that carries the photo, in every form of the app. */
export const IMAGE_FIELD = "image";
/** The form field that carries a clip (the moment forms; docs/decisions/0064-video-clips.md). */
export const VIDEO_FIELD = "video";
/** Stands for "a file was uploaded" when the server validates a form's fields (the file itself stays out). */
export const IMAGE_PRESENT = "uploaded-file";

/** The formats the image module accepts, as the hints name them. */
export const IMAGE_FORMATS = "JPEG, PNG, WebP, GIF, AVIF or HEIC";

/** What the `image` field can be told, by the browser's check or the server's. */
export const IMAGE_MESSAGES = {
  tooBig: `Image must be ${MAX_IMAGE_MB} MB or smaller.`,
  notAnImage: "Only image files are accepted.",
  tooManyPixels: `Image is too large (at most ${MAX_PIXELS / 1_000_000} megapixels).`,
} as const;

/** The multipart parser's messages: `image` (too big), a text field (too long), `message` (the request). */
export const MULTIPART_MESSAGES = {
  imageTooBig: IMAGE_MESSAGES.tooBig,
  notMultipart: "The form must be sent as multipart/form-data.",
  malformed: "The upload could not be read. Please try again.",
  bodyTooBig: "The upload is too large.",
  tooManyParts: "The form has too many fields.",
  tooManyPhotos: `A moment can have at most ${MAX_PHOTOS} photos.`,
  tooManyVideos: "Add one clip at a time.",
  fieldTooLong: "This field is too long.",
} as const;

/**
 * The answer past the hourly photo limit (PHOTO_UPLOADS_PER_HOUR, app/lib/limits.server.ts): on the
 * form, and in the API's 429.
 */
export function photoLimitMessage(perHour: number, waitMs: number): string {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return `You have uploaded as many photos as you may in an hour (${perHour}). Try again in ${minutes === 1 ? "1 minute" : `${minutes} minutes`}.`;
}

/** The body reader's failures (a body without a photo), answered 400 and 413. */
export const BODY_MESSAGES = {
  unreadable: "The request body could not be read.",
  tooLarge: "Request body is too large.",
} as const;

/** The hints under the photo fields. */
export const IMAGE_HINTS = {
  /** Add a moment (and, after "Optional. ", add a kid). */
  choose: `An image file (${IMAGE_FORMATS}), at most ${MAX_IMAGE_MB} MB.`,
  /** After "Leave empty to keep the current …": the update forms. */
  replace: `An image file, at most ${MAX_IMAGE_MB} MB.`,
  /** The profile picture form. */
  picture: `A ${IMAGE_FORMATS} image, up to ${MAX_IMAGE_MB} MB.`,
} as const;

/**
 * The browser's first look at a chosen file: empty, too big, or declared as something other than
 * an image; null when it may be sent (the server judges the content). Not a File (on the server, a
 * stand-in for the uploaded file): null.
 */
export function chosenFileProblem(value: unknown): string | null {
  if (typeof File === "undefined" || !(value instanceof File)) return null;
  // an empty part without a name is "no file chosen"; a chosen file without bytes is no image
  if (value.size === 0) return value.name ? IMAGE_MESSAGES.notAnImage : null;
  if (value.size > MAX_IMAGE_BYTES) return IMAGE_MESSAGES.tooBig;
  if (value.type && !value.type.startsWith("image/")) return IMAGE_MESSAGES.notAnImage;
  return null;
}
