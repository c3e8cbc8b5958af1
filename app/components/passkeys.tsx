import { useEffect, useId, useRef, useState } from "react";
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

type BrowserLibrary = typeof import("@simplewebauthn/browser");
let loadedLibrary: BrowserLibrary | null = null;

/** The browser library, imported on first use (so a page pays for it only when it needs it). */
async function browserLibrary(): Promise<BrowserLibrary> {
  loadedLibrary ??= await import("@simplewebauthn/browser");
  return loadedLibrary;
}

// One sign-in options request at a time: the browser's first one sets the cookie holding its
// handle and the next reuses it, so the log-in page's autofill request and the button's never
// race for the cookie and each finds its own challenge (docs/decisions/0055-passkeys.md).
let optionsInLine: Promise<unknown> = Promise.resolve();

function signInOptions(): Promise<{ ok: boolean; data: Record<string, unknown> }> {
  const asked = optionsInLine.then(() => postJson("/api/auth/passkey/options", {}));
  optionsInLine = asked.catch(() => {});
  return asked;
}

/** Sends the browser's answer; on success a full load of `redirectTo`, else throws with the message to show. */
async function finishSignIn(answer: unknown, redirectTo: string | null | undefined): Promise<void> {
  const done = await postJson("/api/auth/passkey", { response: answer });
  if (!done.ok) throw new Error(errorText(done.data, FAILED));
  // a full load: the new session cookie is in, every loader reads the signed-in viewer
  window.location.assign(redirectTo ?? "/my-kids-list");
}

/** Signs in with the browser's answer to fresh sign-in options; throws with the message to show. */
async function passkeySignIn(redirectTo: string | null | undefined): Promise<void> {
  const { startAuthentication } = await browserLibrary();
  const start = await signInOptions();
  if (!start.ok) throw new Error(errorText(start.data, FAILED));
  // starting this ceremony aborts a waiting autofill request (the library's abort service)
  const answer = await startAuthentication({ optionsJSON: start.data.options as never });
  await finishSignIn(answer, redirectTo);
}

function messageOf(caught: unknown): string {
  return caught instanceof Error && caught.message ? caught.message : FAILED;
}

/**
 * Whether the log-in page's email field offers passkeys among its autofill suggestions (WebAuthn's
 * conditional mediation): known once the page's scripts run, in a browser that says it can. The
 * server render (and so the page without JavaScript) never has it.
 */
export function usePasskeyAutofill(enabled: boolean): boolean {
  const [supported, setSupported] = useState(false);
  useEffect(() => {
    if (!enabled || !webAuthnAvailable()) return;
    let live = true;
    browserLibrary()
      .then((lib) => lib.browserSupportsWebAuthnAutofill())
      .then(
        (yes) => {
          if (live && yes) setSupported(true);
        },
        () => {},
      );
    return () => {
      live = false;
    };
  }, [enabled]);
  return supported;
}

/**
 * "Sign in with a passkey": the log-in page and the log-in modal. Success: a full load of
 * `redirectTo`. With `autofill` (the page, where the browser offers it; the email field then has
 * autocomplete "username webauthn") a conditional request waits from the start for a passkey
 * picked from the field's suggestions, with its own challenge. Pressing the button aborts it (the
 * library's abort service) and the button's ceremony uses its own challenge; once that ends
 * without signing in, a new autofill request waits again. The server takes whichever answer
 * comes back (each challenge once).
 */
export function PasskeySignIn({ redirectTo, autofill = false }: { redirectTo?: string | null; autofill?: boolean }) {
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  // a new round of the autofill request after each ceremony that did not sign in
  const [round, setRound] = useState(0);
  const buttonBusy = useRef(false);

  useEffect(() => {
    if (!autofill) return;
    let live = true;
    const waiting = async () => {
      const lib = await browserLibrary();
      const start = await signInOptions();
      // the button was pressed meanwhile: its ceremony is the one; a refused request is quiet
      // here, the button says what is wrong when pressed
      if (!live || buttonBusy.current || !start.ok) return;
      let answer: unknown;
      try {
        answer = await lib.startAuthentication({ optionsJSON: start.data.options as never, useBrowserAutofill: true });
      } catch {
        // aborted by the button or by leaving the page, or the browser gave up: nothing to show
        return;
      }
      if (!live) return;
      setError(null);
      setPending(true);
      try {
        await finishSignIn(answer, redirectTo);
      } catch (caught) {
        // no new round here: the button stays, and a request that answered at once would loop
        setPending(false);
        setError(messageOf(caught));
      }
    };
    void waiting().catch(() => {});
    return () => {
      live = false;
      // leaving the page (or a new round): the waiting request goes, unless the button's runs
      if (!buttonBusy.current) loadedLibrary?.WebAuthnAbortService.cancelCeremony();
    };
  }, [autofill, redirectTo, round]);

  if (!hydrated || !webAuthnAvailable()) return null;

  async function signIn() {
    buttonBusy.current = true;
    setError(null);
    setPending(true);
    try {
      await passkeySignIn(redirectTo);
    } catch (caught) {
      setPending(false);
      if (!cancelled(caught)) setError(messageOf(caught));
      else setError("No passkey was chosen. Try again, or log in with your email.");
      buttonBusy.current = false;
      setRound((n) => n + 1);
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
      const { startRegistration } = await browserLibrary();
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
