import { useEffect, useId, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { describeUserAgent } from "~/lib/user-agent";
import { PASSKEY_OFFER_COOKIE } from "~/lib/passkey-offer";
import { useHydrated } from "./form-basics";

// Passkey buttons (docs/decisions/0055-passkeys.md). WebAuthn needs JavaScript: the server render
// and a browser without WebAuthn show nothing here, and every other way in works as before. The
// browser library is imported when a button is pressed, so pages pay nothing for it until then.

const FAILED = "That did not work. Try again, or sign in another way.";

function webAuthnAvailable(): boolean {
  return typeof window !== "undefined" && typeof window.PublicKeyCredential === "function";
}

async function postJson(url: string, body: unknown): Promise<{ ok: boolean; data: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  const data = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  return { ok: response.ok, data };
}

/** The first message of an API error answer (bare field errors or envelope C), or `fallback`. */
function errorText(data: Record<string, unknown>, fallback: string): string {
  const errors = (data.errors ?? data) as Record<string, unknown>;
  for (const value of Object.values(errors)) {
    if (typeof value === "string") return value;
    if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  }
  return fallback;
}

/** A browser's "the person closed the prompt" is not an error to show. */
function cancelled(error: unknown): boolean {
  return error instanceof Error && (error.name === "NotAllowedError" || error.name === "AbortError");
}

/** Signs in with the browser's answer to fresh sign-in options; throws with the message to show. */
async function passkeySignIn(redirectTo: string | null | undefined): Promise<void> {
  const { startAuthentication } = await import("@simplewebauthn/browser");
  const start = await postJson("/api/auth/passkey/options", {});
  if (!start.ok) throw new Error(errorText(start.data, FAILED));
  const answer = await startAuthentication({ optionsJSON: start.data.options as never });
  const done = await postJson("/api/auth/passkey", { response: answer });
  if (!done.ok) throw new Error(errorText(done.data, FAILED));
  // a full load: the new session cookie is in, every loader reads the signed-in viewer
  window.location.assign(redirectTo ?? "/my-kids-list");
}

/** "Sign in with a passkey": the log-in page and the log-in modal. Success: a full load of `redirectTo`. */
export function PasskeySignIn({ redirectTo }: { redirectTo?: string | null }) {
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  if (!hydrated || !webAuthnAvailable()) return null;

  async function signIn() {
    setError(null);
    setPending(true);
    try {
      await passkeySignIn(redirectTo);
    } catch (caught) {
      setPending(false);
      if (!cancelled(caught)) setError(caught instanceof Error && caught.message ? caught.message : FAILED);
      else setError("No passkey was chosen. Try again, or log in with your email.");
    }
  }

  return (
    <div className="passkey-sign-in stack">
      {error ? (
        <p className="notice notice--error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="button" className="button button--secondary" onClick={signIn} disabled={pending}>
        {pending ? "Waiting for your passkey…" : "Sign in with a passkey"}
      </button>
    </div>
  );
}

/** "Create a passkey" with its name (prefilled from this device), on the settings page. */
export function CreatePasskey({ heading = "Add a passkey", onCreated }: { heading?: string; onCreated?: () => void }) {
  const hydrated = useHydrated();
  const navigate = useNavigate();
  const inputId = useId();
  const [name, setName] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  if (!hydrated || !webAuthnAvailable()) return null;
  const shownName = name ?? describeUserAgent(navigator.userAgent);

  async function create() {
    setError(null);
    setPending(true);
    try {
      const { startRegistration } = await import("@simplewebauthn/browser");
      const start = await postJson("/api/users/current/passkeys/options", {});
      if (!start.ok) throw new Error(errorText(start.data, FAILED));
      const answer = await startRegistration({ optionsJSON: start.data.options as never });
      const saved = await postJson("/api/users/current/passkeys", { response: answer, name: shownName });
      if (!saved.ok) throw new Error(errorText(saved.data, FAILED));
      onCreated?.();
      await navigate("/settings?done=passkey-added#passkeys", { replace: true });
    } catch (caught) {
      if (cancelled(caught)) setError("No passkey was made. Try again when you are ready.");
      else setError(caught instanceof Error && caught.message ? caught.message : FAILED);
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="stack create-passkey">
      <h3>{heading}</h3>
      {error ? (
        <p className="notice notice--error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="field">
        <label htmlFor={inputId}>Passkey name</label>
        <input id={inputId} value={shownName} maxLength={64} onChange={(e) => setName(e.currentTarget.value)} />
      </div>
      <button type="button" className="button button--primary" onClick={create} disabled={pending}>
        {pending ? "Waiting for your device…" : "Create a passkey"}
      </button>
    </div>
  );
}

/**
 * "Next time, sign in with your face or fingerprint": shown once after joining by invitation or
 * signing in by a link (the server's offer cookie), to an account without a passkey, in a browser
 * with WebAuthn. Nothing without JavaScript.
 */
export function PasskeyOffer() {
  const [shown, setShown] = useState(false);
  // looked for on every navigation: the sign-in that sets the cookie is one, in the same document
  const { key } = useLocation();
  useEffect(() => {
    if (!key) return;
    if (!webAuthnAvailable() || !document.cookie.split("; ").includes(`${PASSKEY_OFFER_COOKIE}=1`)) return;
    // once: the cookie goes as soon as it is read
    // biome-ignore lint/suspicious/noDocumentCookie: a fixed name and value; the Cookie Store API is not in every browser we serve
    document.cookie = `${PASSKEY_OFFER_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`;
    let live = true;
    void fetch("/api/users/current/passkeys", { headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? (r.json() as Promise<{ passkeys: unknown[] }>) : null))
      .then((body) => {
        if (live && body && body.passkeys.length === 0) setShown(true);
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [key]);
  if (!shown) return null;
  return (
    <aside className="page narrow card passkey-offer stack" aria-labelledby="passkey-offer-heading">
      <h2 id="passkey-offer-heading">Next time, sign in with your face or fingerprint</h2>
      <p>A passkey on this device signs you in without a password or an email. It cannot be phished.</p>
      <CreatePasskey heading="Create a passkey for this device" onCreated={() => setShown(false)} />
      <button type="button" className="button button--secondary" onClick={() => setShown(false)}>
        Not now
      </button>
    </aside>
  );
}
