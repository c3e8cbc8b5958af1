import { z } from "zod";

const delivery = (what: string) =>
  z.enum(["off", "digest", "now"], { error: `Choose how you want to hear about ${what}.` });

/** The email settings form (/settings/email): per kind of news off, in the digest or right away; the digest's frequency and hour. */
export const EmailPreferencesSchema = z.object({
  moments: delivery("new moments"),
  comments: delivery("comments on your moments"),
  replies: delivery("replies"),
  digest: z.enum(["daily", "weekly"], { error: "Choose how often the digest comes." }),
  hour: z.coerce
    .number({ error: "Choose an hour." })
    .int("Choose an hour.")
    .min(0, "Choose an hour.")
    .max(23, "Choose an hour."),
});
