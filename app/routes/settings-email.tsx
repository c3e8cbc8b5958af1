import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/settings-email";
import { ErrorSummary, pageTitle, SelectField, SubmitButton, summaryErrors } from "~/components/forms";
import { EmailPreferencesSchema } from "~/forms/email-preferences";
import { getEmailPreferences, saveEmailPreferences } from "~/models/email-preferences.server";
import { requireUser } from "~/web/auth.server";
import { config } from "~/lib/config.server";

// /settings/email (docs/spec.md "Email digests"): no email, a daily or a weekly digest, and the hour.

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  return { prefs: await getEmailPreferences(user.id), timeZone: config().timeZone };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  const submission = parseWithZod(await request.formData(), { schema: EmailPreferencesSchema });
  if (submission.status !== "success") return data({ result: submission.reply() }, { status: 400 });
  await saveEmailPreferences(user.id, submission.value);
  return redirect("/settings/email?saved=1", 303);
}

const CHOICES = [
  { value: "none", label: "No email" },
  { value: "daily", label: "A daily digest" },
  { value: "weekly", label: "A weekly digest (on Sundays)" },
] as const;

const HOURS = Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: `${String(h).padStart(2, "0")}:00` }));

export default function EmailSettingsPage({ loaderData, actionData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: "email-settings",
    lastResult: actionData?.result,
    defaultValue: { digest: loaderData.prefs.digest, hour: String(loaderData.prefs.hour) },
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: EmailPreferencesSchema }),
  });
  const errors = summaryErrors(fields as never, ["digest", "hour"], form.errors, form.id);
  const digest = fields.digest;
  return (
    <div className="page narrow">
      <title>{pageTitle("Email settings", errors.length > 0)}</title>
      <h1>Email settings</h1>
      {params.get("saved") === "1" && !actionData ? (
        <p className="notice" role="status">
          Your email settings are saved.
        </p>
      ) : null}
      <ErrorSummary errors={errors} formId={form.id} />
      <Form method="post" {...getFormProps(form)} className="stack">
        <fieldset
          className={"fieldset field" + (digest.errors?.length ? " field--error" : "")}
          aria-describedby={digest.errors?.length ? digest.errorId : undefined}
        >
          <legend>How often do you want an email about new moments and comments?</legend>
          {digest.errors?.length ? (
            <p id={digest.errorId} className="field-error">
              <span className="visually-hidden">Error: </span>
              {digest.errors.join(" ")}
            </p>
          ) : null}
          {CHOICES.map((c, i) => (
            <div key={c.value} className="radio">
              <input
                type="radio"
                id={i === 0 ? digest.id : `${digest.id}-${c.value}`}
                name={digest.name}
                value={c.value}
                defaultChecked={loaderData.prefs.digest === c.value}
              />
              <label htmlFor={i === 0 ? digest.id : `${digest.id}-${c.value}`}>{c.label}</label>
            </div>
          ))}
        </fieldset>
        <SelectField
          meta={fields.hour}
          label={`At what time (${loaderData.timeZone})?`}
          placeholder="Choose an hour"
          options={HOURS}
        />
        <SubmitButton pending={navigation.state !== "idle"} pendingText="Saving…">
          Save email settings
        </SubmitButton>
      </Form>
      <p>A digest is sent only when there is something new. Every digest has a link to unsubscribe.</p>
    </div>
  );
}
