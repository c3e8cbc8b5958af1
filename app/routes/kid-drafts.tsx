import { Form, href, Link, useNavigation } from "react-router";
import type { Route } from "./+types/kid-drafts";
import "~/styles/drafts.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { config } from "~/lib/config.server";
import { ageOnMomentText, formatCalendarDate, formatInstantDate } from "~/lib/dates";
import { viewKid } from "~/models/kids.server";
import { listDrafts } from "~/models/drafts/read.server";
import { lastRefused } from "~/models/drafts/refusals.server";
import { OWNER_ONLY, pageRefusal } from "~/web/refusal.server";
import { draftsForm } from "~/web/drafts.server";
import { ErrorSummary, pageTitle, useSubmitOnce } from "~/components/forms";
import { EmptyState } from "~/components/empty-state";
import { DraftCard, draftSummary, type DraftView } from "~/components/drafts";

// /kids/:kidId/drafts: the review page of the viewer's draft moments for a kid
// (docs/decisions/0065-drafts.md): what the last "Add photos" refused, each draft's form, publish
// all. The viewer's own drafts only; the kid must still be theirs to post on.

const SUMMARY_ID = "drafts-review";

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  const view = await viewKid(user.id, kidId, "change");
  if (!view.ok) throw pageRefusal(view, { forbidden: OWNER_ONLY });
  const listed = await listDrafts(user.id, kidId);
  if (!listed.ok) throw pageRefusal(listed, { forbidden: OWNER_ONLY });
  const { kid } = view;
  const timeZone = config().timeZone;
  const drafts: DraftView[] = listed.drafts.map((d) => ({
    id: d.id,
    title: d.title,
    content: d.content,
    takenOn: d.takenOn,
    dateText: formatCalendarDate(d.takenOn),
    ageText: ageOnMomentText(kid.name, kid.birth_date, d.takenOn),
    expiresText: formatInstantDate(d.expiresAt, timeZone),
    audience: d.audience ?? kid.default_audience,
    milestone: d.milestone,
    photos: d.photos.map(({ key, width, height, widths, placeholder, id, alt, name }) => ({
      key,
      width,
      height,
      widths,
      placeholder,
      id,
      alt,
      name,
    })),
  }));
  return { kid: { id: kid.id, name: kid.name }, drafts, refused: await lastRefused(user.id, kidId) };
}

export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const kidId = pageId(params.kidId);
  const allowed = await viewKid(user.id, kidId, "change");
  if (!allowed.ok) throw pageRefusal(allowed, { forbidden: OWNER_ONLY });
  return draftsForm(request, user.id, kidId);
}

export default function KidDrafts({ loaderData, actionData }: Route.ComponentProps) {
  const { kid, drafts, refused } = loaderData;
  const navigation = useNavigation();
  const once = useSubmitOnce(navigation.state !== "idle");
  const summary = draftSummary(actionData, actionData?.error);
  const addUrl = href("/kids/:kidId/drafts/new", { kidId: String(kid.id) });
  const labels = drafts.map((d, i) => ({
    id: d.id,
    label: `${d.dateText}${drafts.filter((o) => o.takenOn === d.takenOn).length > 1 ? ` (draft ${i + 1})` : ""}`,
    photos: d.photos.length,
  }));
  const publishingAll = navigation.state === "submitting" && navigation.formData?.get("intent") === "publish-all";
  return (
    <div className="page drafts-page stack">
      <title>{pageTitle(`Drafts for ${kid.name}`, summary.length > 0)}</title>
      <p>
        <Link to={href("/kids/:kidId/dailyLogs", { kidId: String(kid.id) })}>{`${kid.name}'s Moments`}</Link>
      </p>
      <h1>Drafts for {kid.name}</h1>
      <ErrorSummary errors={summary} formId={SUMMARY_ID} />
      {refused.length ? (
        <section className="card stack drafts-refused" aria-labelledby="refused-heading">
          <h2 id="refused-heading">Not added</h2>
          <p>{refused.length === 1 ? "This file was" : `These ${refused.length} files were`} not added:</p>
          <ul>
            {refused.map((r, i) => (
              <li key={i}>
                <strong>{r.name}</strong>: {r.reason}
              </li>
            ))}
          </ul>
          <Form method="post" {...once()}>
            <button type="submit" name="intent" value="dismiss-refused" className="button button--secondary">
              Dismiss
            </button>
          </Form>
        </section>
      ) : null}
      {drafts.length === 0 ? (
        <EmptyState
          art="moments"
          text="No drafts. Add a day's photos at once and they wait here for you to publish them."
        >
          <Link to={addUrl} className="button button--primary">
            Add photos
          </Link>
        </EmptyState>
      ) : (
        <>
          <p>
            Each draft becomes a moment of its day when you publish it. Only you see the drafts.{" "}
            <Link to={addUrl}>Add more photos</Link>
          </p>
          <Form method="post" id={SUMMARY_ID} {...once()}>
            <button type="submit" name="intent" value="publish-all" className="button button--primary">
              {publishingAll ? "Publishing…" : `Publish all ${drafts.length} drafts that are ready`}
            </button>
          </Form>
          {drafts.map((d) => (
            <DraftCard
              key={d.id}
              draft={d}
              kidName={kid.name}
              others={labels.filter((o) => o.id !== d.id)}
              failure={actionData}
              once={once}
            />
          ))}
        </>
      )}
    </div>
  );
}
