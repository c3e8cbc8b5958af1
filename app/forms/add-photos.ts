// The words of "Add photos" (docs/decisions/0065-drafts.md): the form's label and hint, and the
// answers to a request it refuses whole. Browser and server.

export const ADD_PHOTOS_MESSAGES = {
  none: "Choose at least one photo.",
  tooMany: (max: number) => `Choose at most ${max} photos at a time: nothing was added. Add the rest in another go.`,
  label: "Photos",
  hint: (max: number) =>
    `Up to ${max} photos at a time, each up to 15 MB. They are sorted into draft moments by the day they were taken; nobody sees them until you publish.`,
} as const;
