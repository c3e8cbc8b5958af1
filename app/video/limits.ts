// What the clip forms and the server say about clips, in one place (browser code imports it: plain
// data, no node imports). The limits themselves are settings (VIDEO_MAX_SECONDS, VIDEO_MAX_MB).

/** Most items (photos and clips together) of one moment. */
export const MAX_MOMENT_ITEMS = 10;

/** Longest description of a clip (what a relative who cannot watch it reads instead). */
export const MAX_VIDEO_DESCRIPTION = 250;

function minutes(seconds: number): string {
  if (seconds % 60 !== 0) return `${seconds} seconds`;
  return seconds === 60 ? "1 minute" : `${seconds / 60} minutes`;
}

export const VIDEO_MESSAGES = {
  notAVideo: "This file is not a video we can play. Choose a clip from your phone (MP4, MOV or WebM).",
  tooLong: (maxSeconds: number) => `This clip is longer than ${minutes(maxSeconds)}. Trim it on your phone first.`,
  tooBig: (maxMb: number) => `This clip is larger than ${maxMb} MB. Trim it on your phone first.`,
  empty: "This clip has no picture. Choose another one.",
  unavailable:
    "This server cannot take videos yet: its administrator has to install ffmpeg (README, “Videos”). Photos work as always.",
  descriptionRequired: "Describe the clip in a few words, for those who cannot watch or hear it",
  descriptionTooLong: `The description must be at most ${MAX_VIDEO_DESCRIPTION} characters`,
  tooManyItems: `A moment holds at most ${MAX_MOMENT_ITEMS} photos and clips together`,
} as const;
