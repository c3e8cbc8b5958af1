import { useEffect, useState } from "react";
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, useNavigation } from "react-router";
import type { FieldMetadata } from "@conform-to/react";
import {
  ErrorSummary,
  Field,
  SelectField,
  SubmissionToken,
  SubmitButton,
  summaryErrors,
  TextareaField,
  useHydrated,
  useSubmitOnce,
} from "./forms";
import { InviteSchema } from "~/forms/invite";
import {
  asRelationship,
  CIRCLE_LABELS,
  CIRCLES,
  type Circle,
  FRIEND_RELATIONSHIP_LABELS,
  FRIEND_RELATIONSHIPS,
  type FriendRelationship,
  IMPLIED_CIRCLE,
  impliedCircle,
} from "~/forms/circles";
import type { Invitation } from "~/models/invitations.server";
import { type RadioChoice, RadioFieldset } from "./radio-fieldset";
import { listText } from "~/lib/names";
import { CoParentKidsChoice, type KidOption } from "./person-choice";

/** " · co-parent of Mia and Leo" on an invitation that makes its answer one. */
const coParentText = (kids: KidOption[]) => (kids.length ? ` · co-parent of ${listText(kids.map((k) => k.name))}` : "");

// The friends page's invitations (docs/spec.md "Invitations"): the new link (selectable text, and
// "Share" and "Copy link" buttons once scripts run), the form, pending invitations (Revoke) and the friends
// who joined by one ("Make a sign-in link" for those without a password).

const dateText = (iso: string) =>
  new Date(iso).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/**
 * A link to pass on: a read-only field to select (works without JavaScript) and, with JavaScript,
 * "Share" (the device's share sheet, where the browser has Web Share) and "Copy link".
 */
export function CopyLink({ id, url, label }: { id: string; url: string; label: string }) {
  const [canCopy, setCanCopy] = useState(false);
  const [canShare, setCanShare] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    setCanCopy(typeof navigator !== "undefined" && navigator.clipboard !== undefined);
    setCanShare(
      typeof navigator !== "undefined" &&
        typeof navigator.share === "function" &&
        (typeof navigator.canShare !== "function" || navigator.canShare({ url })),
    );
  }, [url]);
  return (
    <div className="field copy-link">
      <label htmlFor={id}>{label}</label>
      <div className="copy-link__row">
        <input
          id={id}
          type="text"
          readOnly
          value={url}
          className="copy-link__url"
          onFocus={(e) => e.currentTarget.select()}
        />
        {canShare ? (
          <button
            type="button"
            className="button button--primary"
            onClick={() => {
              // a closed share sheet rejects (AbortError): nothing to say, the link is still here
              navigator.share({ title: "Sweet Moments", url }).catch(() => {});
            }}
          >
            Share
          </button>
        ) : null}
        {canCopy ? (
          <button
            type="button"
            className="button button--secondary"
            onClick={() => {
              void navigator.clipboard.writeText(url).then(
                () => setCopied(true),
                () => setCopied(false),
              );
            }}
          >
            Copy link
          </button>
        ) : null}
      </div>
      <p className="field-hint" aria-live="polite">
        {copied ? "Copied. Paste it into a message, a text or an email." : null}
      </p>
    </div>
  );
}

export type NewLink = {
  kind: "invitation" | "sign-in";
  url: string;
  expiresAt: string;
  who: string | null;
  /** An invitation's circle: what whoever joins by it sees. */
  circle?: Circle;
};

function NewLinkPanel({ link, sees }: { link: NewLink; sees: CircleSees }) {
  return (
    <div className="notice new-link" id="new-link" tabIndex={-1}>
      <h3>
        {link.kind === "invitation" ? "Your invitation link" : `Sign-in link${link.who ? ` for ${link.who}` : ""}`}
      </h3>
      <p>
        {link.kind === "invitation"
          ? `Send it by any messenger${link.who ? ` (we have also emailed it to ${link.who})` : ""}. It works once, until ${dateText(link.expiresAt)}.${link.circle ? ` Whoever joins by it sees the moments you share with ${sees[link.circle]}.` : ""}`
          : `Send it to them privately: it signs them in once, until ${dateText(link.expiresAt)}.`}
      </p>
      <CopyLink
        id="new-link-url"
        url={link.url}
        label={link.kind === "invitation" ? "Invitation link" : "Sign-in link"}
      />
    </div>
  );
}

/** What each circle sees, "Family and Everyone" (the loader's, from the access module). */
export type CircleSees = Record<Circle, string>;

/**
 * "Their circle": as the relationship implies (checked by default), Family or Friends
 * (docs/decisions/0059-the-circle-a-relationship-implies.md). Without JavaScript the first choice
 * says which relationships imply Family and the server applies it; with JavaScript it names the
 * circle the chosen relationship implies, and a line says what whoever joins will see, until the
 * parent picks a circle by hand.
 */
function CircleChoice({
  meta,
  relationship,
  sees,
}: {
  meta: FieldMetadata<unknown>;
  relationship: FriendRelationship | null;
  sees: CircleSees;
}) {
  const initial = meta.initialValue === "family" || meta.initialValue === "friends" ? meta.initialValue : "";
  const [chosen, setChosen] = useState<Circle | "">(initial);
  const hydrated = useHydrated();
  const implied = impliedCircle(relationship);
  const effective = chosen || implied;
  const familyRelationships = FRIEND_RELATIONSHIPS.filter((r) => IMPLIED_CIRCLE[r] === "family")
    .map((r) => FRIEND_RELATIONSHIP_LABELS[r])
    .join(", ");
  const choices: RadioChoice<Circle | "">[] = [
    { value: "", label: `As the relationship implies${hydrated ? ` (${CIRCLE_LABELS[implied]})` : ""}` },
    ...CIRCLES.map((value) => ({ value, label: CIRCLE_LABELS[value] })),
  ];
  return (
    <RadioFieldset
      meta={meta}
      legend="Their circle"
      choices={choices}
      initial={initial}
      onChoose={setChosen}
      describedBy={`${meta.id}-sees`}
    >
      <p className="field-hint" id={`${meta.id}-sees`} aria-live="polite">
        {hydrated
          ? `Whoever joins sees the moments you share with ${sees[effective]}. You can change it later.`
          : `${familyRelationships}: Family, who see the moments you share with ${sees.family}. Otherwise Friends, who see the moments you share with ${sees.friends}. You can change it later.`}
      </p>
    </RadioFieldset>
  );
}

/** The invitation form's id: its fields' ids start with it, and "Invite someone" leads to it. */
const INVITE_FORM_ID = "invite-form";
/** Where "Invite someone" leads without JavaScript: this page with the form shown, at the form. */
const INVITE_FORM_URL = `/current/friends?invite#${INVITE_FORM_ID}`;

function InviteForm({
  lastResult,
  ownKids,
  sees,
}: {
  lastResult?: SubmissionResult<string[]>;
  ownKids: KidOption[];
  sees: CircleSees;
}) {
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: INVITE_FORM_ID,
    lastResult,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: InviteSchema }),
  });
  const [relationship, setRelationship] = useState<FriendRelationship | null>(
    asRelationship(fields.relationship.initialValue),
  );
  const errors = summaryErrors(
    fields as never,
    ["note", "email", "relationship", "circle", "coParentKids"],
    form.errors,
    form.id,
  );
  const pending = navigation.state !== "idle" && navigation.formData?.get("intent") === "invite";
  const once = useSubmitOnce(navigation.state !== "idle");
  return (
    <>
      <ErrorSummary errors={errors} formId={form.id} />
      <Form method="post" action="/current/friends" {...once(getFormProps(form))} className="stack invite-form">
        <input type="hidden" name="intent" value="invite" />
        <SubmissionToken />
        <TextareaField
          meta={fields.note}
          label="Note (optional)"
          hint="Shown to them when they open the link."
          textareaProps={{ rows: 2, maxLength: 500 }}
        />
        <Field
          meta={fields.email}
          label="Their email address (optional)"
          hint="We email them the link. Leave it empty to send the link yourself."
          type="email"
          inputProps={{ autoComplete: "off", spellCheck: false }}
        />
        <SelectField
          meta={fields.relationship}
          label="Relationship (optional)"
          placeholder="Not set"
          options={FRIEND_RELATIONSHIPS.map((r) => ({ value: r, label: FRIEND_RELATIONSHIP_LABELS[r] }))}
          selectProps={{ onChange: (e) => setRelationship(asRelationship(e.currentTarget.value)) }}
        />
        <CircleChoice meta={fields.circle} relationship={relationship} sees={sees} />
        <CoParentKidsChoice meta={fields.coParentKids} kids={ownKids} />
        <SubmitButton pending={pending} pendingText="Creating…">
          Create invitation link
        </SubmitButton>
      </Form>
    </>
  );
}

export function FamilyInvitationsSection({
  invitations,
  newLink,
  lastResult,
  ownKids = [],
  sees,
  formShown,
}: {
  invitations: Invitation[];
  newLink: NewLink | null;
  lastResult?: SubmissionResult<string[]>;
  /** The parent's own kids: an invitation may make its answer their co-parent. */
  ownKids?: KidOption[];
  sees: CircleSees;
  /**
   * The page shows the form at once (no friends yet, or its `?invite` address). Otherwise the form
   * shows after a link was made and with its errors, and else is behind "Invite someone", so that
   * the page leads with its list (docs/decisions/0058-friends-as-a-list.md).
   */
  formShown: boolean;
}) {
  const [opened, setOpened] = useState(false);
  const showForm = formShown || opened || newLink !== null || lastResult !== undefined;
  // opened in place by "Invite someone" (with JavaScript): its first field takes the focus, once
  useEffect(() => {
    if (opened) document.querySelector<HTMLElement>(`#${INVITE_FORM_ID} [name="note"]`)?.focus();
  }, [opened]);
  const pending = invitations.filter((i) => i.state === "pending");
  const joined = invitations.filter((i) => i.state === "accepted" && i.friend);
  // "Make a sign-in link": a double click makes one link (with JavaScript; each link is valid alone)
  const navigation = useNavigation();
  const once = useSubmitOnce(navigation.state !== "idle");
  return (
    <section aria-labelledby="invitations" className="friends-section">
      <h2 id="invitations">Invite family</h2>
      <p>
        Make a link for a grandparent or relative: they join with one tap, no password needed, and see the moments you
        share with the circle you choose.
      </p>
      {newLink ? <NewLinkPanel link={newLink} sees={sees} /> : null}
      {showForm ? (
        // a new link starts a new, empty form (the note of the last one is not carried over)
        <InviteForm key={newLink?.url ?? "new"} lastResult={lastResult} ownKids={ownKids} sees={sees} />
      ) : (
        <p>
          <a
            href={INVITE_FORM_URL}
            className="button button--secondary"
            onClick={(event) => {
              if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
              event.preventDefault();
              setOpened(true);
            }}
          >
            Invite someone
          </a>
        </p>
      )}
      <h3 id="pending-invitations">Pending invitations</h3>
      {pending.length === 0 ? (
        <p className="empty">No pending invitations</p>
      ) : (
        <ul className="friend-list" aria-labelledby="pending-invitations">
          {pending.map((i) => (
            <li key={i.id} className="card friend">
              <div className="friend-who">
                <div>
                  <span className="friend-who__username">{i.email ?? "Link without email"}</span>
                  <span className="friend-who__name">
                    {i.note ? `“${i.note}” · ` : ""}
                    {CIRCLE_LABELS[i.circle]}
                    {i.relationship ? ` (${FRIEND_RELATIONSHIP_LABELS[i.relationship]})` : ""}
                    {coParentText(i.coParentKids)} · works until {dateText(i.expiresAt)}
                  </span>
                </div>
              </div>
              <Form method="post" action="/current/friends" preventScrollReset>
                <input type="hidden" name="intent" value="revoke-invite" />
                <input type="hidden" name="invitationId" value={i.id} />
                <button type="submit" className="button button--small button--secondary">
                  Revoke
                  <span className="visually-hidden">
                    {" "}
                    the invitation {i.email ? `to ${i.email}` : `made ${dateText(i.createdAt)}`}
                  </span>
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
      {joined.length ? (
        <>
          <h3 id="joined-by-invitation">Joined by your invitations</h3>
          <ul className="friend-list" aria-labelledby="joined-by-invitation">
            {joined.map((i) => (
              <li key={i.id} className="card friend">
                <div className="friend-who">
                  <span className="friend-who__username">{i.friend!.name}</span>
                </div>
                {!i.friend!.canMakeLink ? (
                  <span className="friend-who__name">
                    {i.friend!.hasPassword ? "Has a password" : "Signs in on their own"}
                  </span>
                ) : (
                  <Form method="post" action="/current/friends" preventScrollReset {...once()}>
                    <input type="hidden" name="intent" value="friend-link" />
                    <input type="hidden" name="friendId" value={i.friend!.id} />
                    <input type="hidden" name="friendName" value={i.friend!.name} />
                    <button type="submit" className="button button--small button--secondary">
                      Make a sign-in link<span className="visually-hidden"> for {i.friend!.name}</span>
                    </button>
                  </Form>
                )}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
