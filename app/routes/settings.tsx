import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, href } from "react-router";
import type { z } from "zod";
import type { Route } from "./+types/settings";
import type { Result } from "~/models/refusal";
import "~/styles/settings.css";
import { readFields } from "~/api/read-body.server";
import { asFormValue } from "~/forms/parse-body.server";
import { pageTitle } from "~/components/forms";
import { ExportLink } from "~/components/export-link";
import { ORIGINAL_MAX_EDGE } from "~/images/limits";
import { PasswordSchema, profileSchema } from "~/forms/account";
import { config, siteOrigin } from "~/lib/config.server";
import { formatInstantDate } from "~/lib/dates";
import { changePassword, getAccount, isFreshSignIn, updateProfile } from "~/models/account.server";
import { endOtherSessions, endSessionByHandle, linkSignInAt, listSessions } from "~/models/sessions.server";
import { linksMadeForMe, turnOffRelativeLinks } from "~/models/sign-in-links.server";
import { listPasskeys, removePasskey, renamePasskey } from "~/models/passkeys.server";
import { parseId } from "~/lib/request.server";
import { requireUser, sessionToken } from "~/web/auth.server";
import { Passkeys } from "~/components/passkey-list";
import { LinksForMe, PasswordForm, ProfileForm } from "~/components/settings-sections";

// /settings (docs/spec.md §2 "Settings"): the account's details, its password, its signed-in
// sessions, and the way to its data (export, delete). Every form is a plain POST told apart by
// `intent`; success redirects back here with `?done=` (post, redirect, get).

const DONE: Record<string, string> = {
  profile: "Your details have been saved.",
  password:
    "Your password has been saved. Every other session has been signed out: log in there again with the new password.",
  session: "That session has been signed out.",
  others: "Every other session has been signed out.",
  "links-off": "Sign-in links made for you are turned off. To sign in, use your password or a link sent to your email.",
  "passkey-added": "Your passkey has been saved. Next time, sign in with it.",
  "passkey-renamed": "The passkey has been renamed.",
  "passkey-removed":
    "The passkey has been removed. It no longer signs in to your account, and the other devices it signed in to are signed out.",
  "email-undone":
    "The email change is undone and every other session is signed out. Choose a new password now: the old one was removed.",
};

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const account = await getAccount(user.id);
  if (!account) throw redirect("/login");
  const tz = config().timeZone;
  const sessions = (await listSessions(user.id, await sessionToken(request))).map((s) => ({
    ...s,
    lastSeen: formatInstantDate(s.last_seen_at, tz),
    created: formatInstantDate(s.created_at, tz),
  }));
  const done = new URL(request.url).searchParams.get("done");
  const linksForMe = await linksMadeForMe(user.id);
  return {
    linksForMe: {
      open: linksForMe.open,
      links: linksForMe.links.map((l) => ({
        by: l.by.name,
        created: formatInstantDate(l.createdAt, tz),
        used: l.usedAt ? formatInstantDate(l.usedAt, tz) : null,
      })),
    },
    account: {
      first_name: account.first_name ?? "",
      last_name: account.last_name ?? "",
      username: account.username,
      email: account.email,
      has_password: account.has_password,
    },
    sessions,
    passkeys: (await listPasskeys(user.id)).map((p) => ({
      id: p.id,
      name: p.name,
      created: formatInstantDate(p.created_at, tz),
      lastUsed: p.last_used_at ? formatInstantDate(p.last_used_at, tz) : null,
    })),
    // just signed in by a link from their email: no current password is asked (decision 0061)
    freshLinkSignIn: isFreshSignIn(await linkSignInAt(await sessionToken(request))),
    done: done && DONE[done] ? DONE[done] : null,
  };
}

type ActionData =
  | { intent: "profile" | "password"; result: SubmissionResult<string[]> }
  | { intent: "session"; error: string }
  | { intent: "passkey"; error: string; passkey: number };

const HIDDEN = ["current_password", "password", "confirmPassword"];

/** One of the two field forms: validated, saved, then back to the page (or the form with its errors). */
async function submit<S extends z.ZodObject>(
  intent: "profile" | "password",
  form: FormData,
  schema: S,
  save: (value: z.output<S>) => Promise<Result>,
) {
  const submission = parseWithZod(form, { schema });
  if (submission.status !== "success")
    return data<ActionData>({ intent, result: submission.reply({ hideFields: HIDDEN }) }, { status: 400 });
  const saved = await save(submission.value);
  if (!saved.ok) {
    return data<ActionData>(
      { intent, result: submission.reply({ fieldErrors: saved.fieldErrors ?? {}, hideFields: HIDDEN }) },
      { status: 400 },
    );
  }
  return redirect(`${href("/settings")}?done=${intent}`, 303);
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  const raw = await readFields(request);
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    const value = asFormValue(v);
    if (value !== undefined) fields[k] = value;
  }
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);

  switch (fields.intent) {
    case "profile":
      // the names the account has are taken unchanged (decision 0061)
      return submit("profile", form, profileSchema(user), async (value) =>
        updateProfile(user.id, value, siteOrigin(), { linkSignInAt: await linkSignInAt(await sessionToken(request)) }),
      );
    case "password":
      return submit("password", form, PasswordSchema, async (value) => {
        const token = await sessionToken(request);
        return changePassword(user.id, value, { linkSignInAt: await linkSignInAt(token), keepToken: token });
      });
    case "end-session": {
      const ended = await endSessionByHandle(user.id, fields.session ?? "");
      if (!ended.ok)
        return data<ActionData>(
          { intent: "session", error: "That session has already ended. The list below is up to date." },
          { status: 404 },
        );
      return redirect("/settings?done=session", 303);
    }
    case "links-off": {
      await turnOffRelativeLinks(user.id, await sessionToken(request));
      return redirect("/settings?done=links-off", 303);
    }
    case "passkey-rename":
    case "passkey-remove": {
      const passkey = parseId(fields.passkey) ?? 0;
      const changed =
        fields.intent === "passkey-rename"
          ? await renamePasskey(user.id, passkey, fields.name)
          : await removePasskey(user.id, passkey, await sessionToken(request));
      if (!changed.ok)
        return data<ActionData>(
          {
            intent: "passkey",
            passkey,
            error: changed.message ?? "That passkey is gone. The list below is up to date.",
          },
          { status: changed.kind === "not-found" ? 404 : 400 },
        );
      return redirect(
        `/settings?done=${fields.intent === "passkey-rename" ? "passkey-renamed" : "passkey-removed"}#passkeys`,
        303,
      );
    }
    case "end-others": {
      await endOtherSessions(user.id, await sessionToken(request));
      return redirect("/settings?done=others", 303);
    }
    default:
      return data<ActionData>({ intent: "session", error: "That request could not be handled." }, { status: 400 });
  }
}

export default function SettingsPage({ loaderData, actionData }: Route.ComponentProps) {
  const { account, sessions, done } = loaderData;
  const result = (intent: "profile" | "password") =>
    actionData && actionData.intent === intent && "result" in actionData ? actionData.result : undefined;
  const sessionError = actionData && actionData.intent === "session" && "error" in actionData ? actionData.error : null;
  const hasErrors = Boolean(
    actionData &&
      (("result" in actionData && actionData.result.error) || sessionError || actionData.intent === "passkey"),
  );
  const others = sessions.filter((s) => !s.current);
  return (
    <div className="page narrow settings-page">
      <title>{pageTitle("Settings", hasErrors)}</title>
      <h1>Settings</h1>
      {done ? (
        <p className="notice notice--success" role="status">
          {done}
        </p>
      ) : null}
      <ProfileForm
        key={`profile-${account.username}-${account.email}`}
        account={account}
        freshLinkSignIn={loaderData.freshLinkSignIn}
        lastResult={result("profile")}
      />
      <PasswordForm
        hasPassword={account.has_password}
        freshLinkSignIn={loaderData.freshLinkSignIn}
        lastResult={result("password")}
      />

      <Passkeys
        passkeys={loaderData.passkeys}
        failure={actionData && actionData.intent === "passkey" ? actionData : null}
      />

      <section aria-labelledby="email-heading" className="settings-section">
        <h2 id="email-heading">Email</h2>
        <p>
          <Link to="/settings/email">Email settings</Link>: how you hear about new moments, comments and replies: in a
          digest, right away, or not by email.
        </p>
      </section>
      <section aria-labelledby="sessions-heading" className="settings-section">
        <h2 id="sessions-heading">Where you are logged in</h2>
        {sessionError ? (
          <p className="notice notice--error" role="alert">
            {sessionError}
          </p>
        ) : null}
        <ul className="session-list">
          {sessions.map((s) => (
            <li key={s.id} className="card session">
              <div>
                <p className="session__device">
                  {s.device}
                  {s.current ? <strong className="session__current"> (this device)</strong> : null}
                </p>
                <p className="session__dates">
                  Last seen {s.lastSeen} · logged in {s.created}
                </p>
              </div>
              {s.current ? null : (
                <Form method="post">
                  <input type="hidden" name="intent" value="end-session" />
                  <input type="hidden" name="session" value={s.id} />
                  <button type="submit" className="button button--small button--secondary">
                    Sign out
                    <span className="visually-hidden">
                      {" "}
                      {s.device}, last seen {s.lastSeen}
                    </span>
                  </button>
                </Form>
              )}
            </li>
          ))}
        </ul>
        {others.length ? (
          <Form method="post">
            <input type="hidden" name="intent" value="end-others" />
            <button type="submit" className="button button--secondary">
              Sign out everywhere else
            </button>
          </Form>
        ) : null}
      </section>

      <LinksForMe linksForMe={loaderData.linksForMe} />

      <section aria-labelledby="data-heading" className="settings-section">
        <h2 id="data-heading">Your data</h2>
        <p>One ZIP file that holds:</p>
        <ul className="export__contents">
          <li>
            your moments' photos at full size (JPEG, as large as you uploaded them up to {ORIGINAL_MAX_EDGE} pixels on
            the long side, with location and camera details removed); photos added before full-size copies were kept
            come at the largest size stored, 1280 pixels wide, and the album says how many;
          </li>
          <li>your kids' photos and your profile picture at the largest size stored;</li>
          <li>
            your data as <code>data.json</code>: your account, your kids, their moments with likes and comments, your
            friends' names and your passkeys' names;
          </li>
          <li>an album of those photos and moments that opens in any browser without this site.</li>
        </ul>
        <ExportLink />
        <p>
          Coming from another Sweet Moments server, or from Google Photos?{" "}
          <Link to="/settings/import">Move in: import an export or an album</Link>
        </p>
        <p>
          <Link to="/settings/delete" className="danger-link">
            Delete my account
          </Link>
        </p>
      </section>
    </div>
  );
}
