import { getFormProps, useForm, type FieldMetadata } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/settings-email";
import { ErrorSummary, pageTitle, SelectField, SubmitButton, summaryErrors } from "~/components/forms";
import { EmailPreferencesSchema } from "~/forms/email-preferences";
import { getEmailPreferences, saveEmailPreferences } from "~/models/email-preferences.server";
import { requireUser } from "~/web/auth.server";
import { config } from "~/lib/config.server";

// /settings/email (docs/spec.md "Email digests", docs/decisions/0062-*): for each kind of news (new
// moments, comments on my moments, replies) no email, a line in the digest, or a mail right away;
// the digest daily or weekly, and its hour. In the app every kind is always on Notifications.

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

type Choice = { value: string; label: string };

const DELIVERIES: Choice[] = [
  { value: "off", label: "No email" },
  { value: "digest", label: "In my digest" },
  { value: "now", label: "Right away" },
];

const KINDS = [
  { name: "moments", legend: "New moments of the kids you follow" },
  { name: "comments", legend: "Comments on your moments" },
  { name: "replies", legend: "Replies after you commented" },
] as const;

const FREQUENCIES: Choice[] = [
  { value: "daily", label: "Daily" },
  { value: "weekly", label: "Weekly (on Sundays)" },
];

const HOURS = Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: `${String(h).padStart(2, "0")}:00` }));

/** One question answered by radio buttons, with its error on the fieldset (the GOV.UK pattern). */
function RadioFieldset({
  meta,
  legend,
  choices,
  checked,
}: {
  meta: FieldMetadata<string>;
  legend: string;
  choices: Choice[];
  checked: string;
}) {
  const invalid = Boolean(meta.errors?.length);
  return (
    <fieldset
      className={"fieldset field" + (invalid ? " field--error" : "")}
      aria-describedby={invalid ? meta.errorId : undefined}
    >
      <legend>{legend}</legend>
      {invalid ? (
        <p id={meta.errorId} className="field-error">
          <span className="visually-hidden">Error: </span>
          {meta.errors!.join(" ")}
        </p>
      ) : null}
      {choices.map((c, i) => {
        // the first radio carries the field's id: the error summary's link lands on it
        const id = i === 0 ? meta.id : `${meta.id}-${c.value}`;
        return (
          <div key={c.value} className="radio">
            <input type="radio" id={id} name={meta.name} value={c.value} defaultChecked={checked === c.value} />
            <label htmlFor={id}>{c.label}</label>
          </div>
        );
      })}
    </fieldset>
  );
}

export default function EmailSettingsPage({ loaderData, actionData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const { prefs } = loaderData;
  const [form, fields] = useForm({
    id: "email-settings",
    lastResult: actionData?.result,
    defaultValue: { ...prefs, hour: `${prefs.hour}` },
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: EmailPreferencesSchema }),
  });
  const errors = summaryErrors(
    fields as never,
    ["moments", "comments", "replies", "digest", "hour"],
    form.errors,
    form.id,
  );
  return (
    <div className="page narrow">
      <title>{pageTitle("Email settings", errors.length > 0)}</title>
      <h1>Email settings</h1>
      {params.get("saved") === "1" && !actionData ? (
        <p className="notice" role="status">
          Your email settings are saved.
        </p>
      ) : null}
      <p>
        Everything new is always on your Notifications page. Choose what also comes by email: in one digest, or right
        away.
      </p>
      <ErrorSummary errors={errors} formId={form.id} />
      <Form method="post" {...getFormProps(form)} className="stack">
        {KINDS.map((kind) => (
          <RadioFieldset
            key={kind.name}
            meta={fields[kind.name] as FieldMetadata<string>}
            legend={kind.legend}
            choices={DELIVERIES}
            checked={prefs[kind.name]}
          />
        ))}
        <RadioFieldset
          meta={fields.digest as FieldMetadata<string>}
          legend="How often does your digest come?"
          choices={FREQUENCIES}
          checked={prefs.digest}
        />
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
      <p>A digest is sent only when there is something new. Every email has a link to unsubscribe.</p>
    </div>
  );
}
