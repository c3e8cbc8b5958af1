import { Form, href, Link, useNavigation } from "react-router";
import type { Route } from "./+types/settings-import";
import "~/styles/settings.css";
import { ErrorSummary, FieldError, pageTitle, SubmitButton, type SummaryError } from "~/components/forms";
import { config } from "~/lib/config.server";
import { listKidsOf } from "~/models/kids.server";
import { importFormAction } from "~/web/imports.server";
import { requireUser } from "~/web/auth.server";

// /settings/import, "Move in" (docs/decisions/0066-imports.md): a plain form (it works without
// JavaScript) where a parent uploads either an export ZIP of another Sweet Moments server or a
// Google Takeout album; the server tells them apart by their content. The result is its own page.

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const kids = await listKidsOf(user.id);
  const discarded = new URL(request.url).searchParams.get("discarded");
  return {
    kids: kids.map((k) => ({ id: k.id, name: k.name })),
    maxMb: config().importMaxMb,
    discarded: discarded === null ? null : Number(discarded) || 0,
  };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireUser(request);
  return importFormAction(request, user.id);
}

const FORM_ID = "move-in";

export default function MoveInPage({ loaderData, actionData }: Route.ComponentProps) {
  const { kids, maxMb, discarded } = loaderData;
  const navigation = useNavigation();
  const pending = navigation.state !== "idle" && navigation.formMethod?.toUpperCase() === "POST";
  const errors = actionData?.errors ?? {};
  const summary: SummaryError[] = [
    ...(errors.archive ?? []).map((message) => ({ fieldId: "archive", message })),
    ...(errors.kid_id ?? []).map((message) => ({ fieldId: "kid_id", message })),
  ];
  return (
    <div className="page narrow settings">
      <title>{pageTitle("Move in", summary.length > 0)}</title>
      <h1>Move in</h1>
      {discarded !== null ? (
        <p role="status" className="notice notice--success">
          Discarded: what that import brought is gone.
        </p>
      ) : null}
      <p>Bring your family's moments here from elsewhere, in one ZIP file:</p>
      <ul>
        <li>
          <strong>An export of another Sweet Moments server</strong> (the ZIP its “Download all my data” makes): its
          kids become your kids here, with their moments, dates, milestones, texts, who sees them, photos and their alt
          texts. Likes and comments by other people are not imported: they are theirs, and they are not here to give
          them again. Importing the same ZIP twice creates nothing twice.
        </li>
        <li>
          <strong>A Google Photos album</strong> (a ZIP from Google Takeout, with each photo's .json file): its photos
          become draft moments for the kid you choose, one per day they were taken, with Google's descriptions as their
          text. You review them, and nobody sees them until you publish.
        </li>
      </ul>
      <ErrorSummary errors={summary} formId={FORM_ID} />
      <Form method="post" encType="multipart/form-data" id={FORM_ID} className="stack" noValidate>
        <div className={`field${errors.archive ? " field--error" : ""}`}>
          <label htmlFor="archive">ZIP file</label>
          <p id="archive-hint" className="field-hint">
            Up to {maxMb.toLocaleString("en")} MB. Uploading a large file takes a while: keep this page open.
          </p>
          <FieldError id="archive-error" errors={errors.archive} />
          <input
            id="archive"
            name="archive"
            type="file"
            accept=".zip,application/zip"
            required
            aria-describedby={errors.archive ? "archive-hint archive-error" : "archive-hint"}
            aria-invalid={errors.archive ? true : undefined}
          />
        </div>
        <div className={`field${errors.kid_id ? " field--error" : ""}`}>
          <label htmlFor="kid_id">For a Google Photos album: which kid are its photos of?</label>
          <p id="kid_id-hint" className="field-hint">
            Not needed for an export of Sweet Moments.{" "}
            {kids.length ? null : (
              <>
                You have no kid yet: <Link to="/kids/add-new">add your kid</Link> first to import an album.
              </>
            )}
          </p>
          <FieldError id="kid_id-error" errors={errors.kid_id} />
          <select
            id="kid_id"
            name="kid_id"
            defaultValue={actionData?.kidId ?? ""}
            aria-describedby={errors.kid_id ? "kid_id-hint kid_id-error" : "kid_id-hint"}
            aria-invalid={errors.kid_id ? true : undefined}
          >
            <option value="">No kid (an export)</option>
            {kids.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
              </option>
            ))}
          </select>
        </div>
        <p className="button-row">
          <SubmitButton pending={pending} pendingText="Importing… this can take a few minutes">
            Import
          </SubmitButton>
          <Link to={href("/settings")} className="button button--secondary">
            Cancel
          </Link>
        </p>
        {pending ? (
          <p role="status" className="notice">
            Uploading and importing your ZIP file. Keep this page open until it is done.
          </p>
        ) : null}
      </Form>
    </div>
  );
}
