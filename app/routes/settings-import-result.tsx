import { Form, href, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/settings-import-result";
import "~/styles/settings.css";
import { formatInstantDate } from "~/lib/dates";
import { config } from "~/lib/config.server";
import { pageId } from "~/lib/request.server";
import { getImport } from "~/imports/records.server";
import { discardImport } from "~/imports/imports.server";
import { SubmitButton } from "~/components/forms";
import { notFound } from "~/models/refusal";
import { pageRefusal } from "~/web/refusal.server";
import { requireUser } from "~/web/auth.server";

// /settings/import/{id}: what one import brought and what it left out, and why
// (docs/decisions/0066-imports.md). Only its own account sees it (another's: not found).

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const id = pageId(params.importId);
  const record = await getImport(user.id, id);
  if (!record) throw pageRefusal(notFound("Import not found"));
  return { record, when: formatInstantDate(record.updated_at, config().timeZone) };
}

/** "Discard what this import brought": the kids and moments it created go; then the import is forgotten. */
export async function action({ request, params }: Route.ActionArgs) {
  const user = await requireUser(request);
  const id = pageId(params.importId);
  const done = await discardImport(user.id, id);
  if (!done.ok) throw pageRefusal(done);
  return redirect(`${href("/settings/import")}?discarded=${done.kids + done.moments}`, 303);
}

const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

export default function ImportResultPage({ loaderData }: Route.ComponentProps) {
  const { record, when } = loaderData;
  const s = record.summary;
  const running = record.status === "running";
  const navigation = useNavigation();
  return (
    <div className="page narrow settings">
      <title>Moved in – Sweet Moments</title>
      <h1>{running ? "Import not finished" : "Moved in"}</h1>
      {running ? (
        <p className="notice" role="status">
          This import stopped before the end. Import the same ZIP file again to finish it: what is here already is
          skipped, nothing is made twice.
        </p>
      ) : null}
      <p>
        {s.kind === "export" ? "An export of Sweet Moments" : "A Google Photos album"}, imported on {when}.
      </p>
      <h2>What was imported</h2>
      {s.kind === "export" ? (
        <ul>
          <li>{n(s.kids, "kid")}</li>
          <li>
            {n(s.moments, "moment")} with {n(s.photos, "photo")}
            {s.clips ? ` and ${n(s.clips, "clip")}` : ""}
          </li>
          {s.alreadyThere ? (
            <li>
              {n(s.alreadyThere, "kid or moment", "kids and moments")} were here already from an earlier import: left as
              they are
            </li>
          ) : null}
        </ul>
      ) : (
        <ul>
          <li>
            {n(s.photos, "photo")} in {n(s.moments, "draft moment")}, one per day they were taken
          </li>
        </ul>
      )}
      {s.othersLikes || s.othersComments ? (
        <p>
          Not imported: {n(s.othersLikes, "like")} and {n(s.othersComments, "comment")} by other people. They are
          theirs; they were not imported in their name.
        </p>
      ) : null}
      {s.skipped.length ? (
        <>
          <h2>What was left out, and why</h2>
          <ul>
            {s.skipped.map((reason, i) => (
              <li key={i}>{reason}</li>
            ))}
          </ul>
        </>
      ) : null}
      <p className="button-row">
        {s.kind === "takeout" && s.kidId ? (
          <Link to={href("/kids/:kidId/drafts", { kidId: String(s.kidId) })} className="button button--primary">
            Review the drafts
          </Link>
        ) : (
          <Link to="/my-kids-list" className="button button--primary">
            See your kids
          </Link>
        )}
        <Link to={href("/settings/import")} className="button button--secondary">
          Import another
        </Link>
      </p>
      {s.kind === "export" ? (
        <section aria-labelledby="discard-title">
          <h2 id="discard-title">Changed your mind?</h2>
          <p>
            Discarding removes every kid and moment this import brought, with their photos. What you added yourself
            stays.
          </p>
          <Form method="post">
            <SubmitButton
              className="button button--danger"
              pending={navigation.state === "submitting"}
              pendingText="Discarding…"
            >
              Discard what this import brought
            </SubmitButton>
          </Form>
        </section>
      ) : null}
    </div>
  );
}
