import { z } from "zod";

/** The email settings form (/settings/email). */
export const EmailPreferencesSchema = z.object({
  digest: z.enum(["none", "daily", "weekly"], { error: "Choose how often you want an email." }),
  hour: z.coerce
    .number({ error: "Choose an hour." })
    .int("Choose an hour.")
    .min(0, "Choose an hour.")
    .max(23, "Choose an hour."),
});
