import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { useMemo } from "react";
import { Form, useNavigation } from "react-router";
import { ErrorSummary, Field, SubmitButton, summaryErrors, useSchemaForm } from "~/components/forms";
import { PasswordSchema, profileSchema } from "~/forms/account";
import { PASSWORD_HINT } from "~/forms/people";

// The settings page's forms for the account itself (app/routes/settings.tsx): its details, its
// password, and the sign-in links a parent made for it.

/** What the details form starts from. */
export type AccountDetails = {
  first_name: string;
  last_name: string;
  username: string;
  email: string;
  has_password: boolean;
};

/** Sign-in links made for this account, as the page shows them (dates already written out). */
export type LinksForMeView = { open: boolean; links: { by: string; created: string; used: string | null }[] };

/** The words of a form that asks no current password now: the person just signed in by an emailed link. */
function NoCurrentPassword() {
  return (
    <p className="field-hint">
      You signed in with a link from your email, so your current password is not needed for the next few minutes.
    </p>
  );
}

export function ProfileForm({
  account,
  freshLinkSignIn,
  lastResult,
}: {
  account: AccountDetails;
  /** signed in by an emailed link minutes ago: it stands in for the current password (decision 0061) */
  freshLinkSignIn: boolean;
  lastResult?: SubmissionResult<string[]>;
}) {
  const id = "settings-profile";
  const navigation = useNavigation();
  const { first_name, last_name } = account;
  const schema = useMemo(() => profileSchema({ first_name, last_name }), [first_name, last_name]);
  const [form, fields] = useSchemaForm(id, schema, lastResult, {
    first_name: account.first_name,
    last_name: account.last_name,
    username: account.username,
    email: account.email,
  });
  const errors = summaryErrors(
    fields as never,
    ["first_name", "last_name", "username", "email", "current_password"],
    form.errors,
    id,
  );
  const pending = navigation.state !== "idle" && navigation.formData?.get("intent") === "profile";
  return (
    <section aria-labelledby="details-heading" className="settings-section">
      <h2 id="details-heading">Your details</h2>
      <ErrorSummary errors={errors} formId={id} />
      <Form method="post" {...getFormProps(form)} className="stack">
        <input type="hidden" name="intent" value="profile" />
        <Field meta={fields.first_name} label="First name" inputProps={{ autoComplete: "given-name" }} />
        <Field meta={fields.last_name} label="Last name" inputProps={{ autoComplete: "family-name" }} />
        <Field meta={fields.username} label="Username" inputProps={{ autoComplete: "username", spellCheck: false }} />
        <Field
          meta={fields.email}
          label="Email"
          type="email"
          inputProps={{ autoComplete: "email", spellCheck: false }}
        />
        {account.has_password && !freshLinkSignIn ? (
          <Field
            meta={fields.current_password}
            label="Current password"
            type="password"
            hint="Needed only to change your username or email."
            inputProps={{ autoComplete: "current-password" }}
          />
        ) : null}
        <SubmitButton pending={pending} pendingText="Saving…">
          Save details
        </SubmitButton>
      </Form>
    </section>
  );
}

export function PasswordForm({
  hasPassword,
  freshLinkSignIn,
  lastResult,
}: {
  hasPassword: boolean;
  freshLinkSignIn: boolean;
  lastResult?: SubmissionResult<string[]>;
}) {
  const id = "settings-password";
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(id, PasswordSchema, lastResult);
  const errors = summaryErrors(fields as never, ["current_password", "password", "confirmPassword"], form.errors, id);
  const pending = navigation.state !== "idle" && navigation.formData?.get("intent") === "password";
  return (
    <section id="password" aria-labelledby="password-heading" className="settings-section">
      <h2 id="password-heading">{hasPassword ? "Change your password" : "Set a password"}</h2>
      {hasPassword ? null : <p>Your account has no password yet. Set one to log in with your email and a password.</p>}
      {hasPassword && freshLinkSignIn ? <NoCurrentPassword /> : null}
      <ErrorSummary errors={errors} formId={id} />
      <Form method="post" {...getFormProps(form)} className="stack">
        <input type="hidden" name="intent" value="password" />
        {hasPassword && !freshLinkSignIn ? (
          <Field
            meta={fields.current_password}
            label="Current password"
            type="password"
            inputProps={{ autoComplete: "current-password" }}
          />
        ) : null}
        <Field
          meta={fields.password}
          label="New password"
          type="password"
          hint={PASSWORD_HINT}
          inputProps={{ autoComplete: "new-password" }}
        />
        <Field
          meta={fields.confirmPassword}
          label="Confirm new password"
          type="password"
          inputProps={{ autoComplete: "new-password" }}
        />
        <SubmitButton pending={pending} pendingText="Saving…">
          {hasPassword ? "Change password" : "Set password"}
        </SubmitButton>
      </Form>
    </section>
  );
}

/** Sign-in links a parent made for this account (docs/decisions/0039-account-safety.md): who, when, and the way to stop them. */
export function LinksForMe({ linksForMe }: { linksForMe: LinksForMeView }) {
  if (!linksForMe.open && !linksForMe.links.length) return null;
  return (
    <section aria-labelledby="links-heading" className="settings-section">
      <h2 id="links-heading">Sign-in links made for you</h2>
      <p>
        The person who invited you can make a link that signs in to your account, for as long as you have no password
        and have not used a link from your email.
        {linksForMe.open
          ? null
          : " That is over: nobody can make such links for you any more, and the ones made before no longer work."}
      </p>
      {linksForMe.links.length ? (
        <ul className="session-list">
          {linksForMe.links.map((l, i) => (
            <li key={i} className="card session">
              <p className="session__dates">
                {l.by} made a link on {l.created}
                {l.used ? ` · used ${l.used}` : " · not used"}
              </p>
            </li>
          ))}
        </ul>
      ) : (
        <p>Nobody has made one yet.</p>
      )}
      {linksForMe.open ? (
        <Form method="post">
          <input type="hidden" name="intent" value="links-off" />
          <button type="submit" className="button button--secondary">
            Turn off sign-in links made for me
          </button>
        </Form>
      ) : null}
    </section>
  );
}
