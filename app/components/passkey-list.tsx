import { Form } from "react-router";
import { CreatePasskey } from "./passkeys";

// The settings page's passkeys (docs/spec.md "Settings"): each with its name, when it was made and
// last used, a rename form and a remove button. Plain forms: they work without JavaScript; only
// making a new passkey needs it (CreatePasskey renders nothing without).

type ShownPasskey = { id: number; name: string; created: string; lastUsed: string | null };

export function Passkeys({
  passkeys,
  failure,
}: {
  passkeys: ShownPasskey[];
  failure: { passkey: number; error: string } | null;
}) {
  return (
    <section id="passkeys" aria-labelledby="passkeys-heading" className="settings-section">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p>A passkey signs you in with your face, your fingerprint or your phone's lock, with no password to remember.</p>
      {failure ? (
        <p className="notice notice--error" role="alert">
          {failure.error}
        </p>
      ) : null}
      {passkeys.length ? (
        <ul className="session-list passkey-list">
          {passkeys.map((p) => (
            <li key={p.id} className="card session">
              <div>
                <p className="session__device">{p.name}</p>
                <p className="session__dates">
                  Made {p.created} · {p.lastUsed ? `last used ${p.lastUsed}` : "not used yet"}
                </p>
              </div>
              <Form method="post" className="passkey-rename">
                <input type="hidden" name="intent" value="passkey-rename" />
                <input type="hidden" name="passkey" value={p.id} />
                <label htmlFor={`passkey-name-${p.id}`}>
                  New name<span className="visually-hidden"> for {p.name}</span>
                </label>
                <input id={`passkey-name-${p.id}`} name="name" defaultValue={p.name} maxLength={64} required />
                <button type="submit" className="button button--small button--secondary">
                  Rename<span className="visually-hidden"> {p.name}</span>
                </button>
              </Form>
              <Form method="post">
                <input type="hidden" name="intent" value="passkey-remove" />
                <input type="hidden" name="passkey" value={p.id} />
                <button type="submit" className="button button--small button--secondary">
                  Remove<span className="visually-hidden"> {p.name}</span>
                </button>
              </Form>
            </li>
          ))}
        </ul>
      ) : (
        <p>You have no passkey yet.</p>
      )}
      <CreatePasskey />
    </section>
  );
}
