import { Link, href } from "react-router";
import type { Route } from "./+types/kid-milestones";
import "~/styles/kids.css";
import { requireUser } from "~/web/auth.server";
import { pageId } from "~/lib/request.server";
import { listMilestones } from "~/models/story.server";
import { pageRefusal } from "~/web/refusal.server";
import { kidMomentView } from "~/web/feed.server";
import { StoryLinks, StoryMomentList } from "~/components/moment-view";
import { EmptyState } from "~/components/empty-state";

// GET /kids/:kidId/milestones: the kid's milestones in date order with the age at each.

export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireUser(request);
  const list = await listMilestones(user.id, pageId(params.kidId));
  if (!list.ok) throw pageRefusal(list);
  const { kid } = list;
  return {
    kid: { id: kid.id, name: kid.name },
    // owner and co-parents post moments, so both are told how to mark one
    canChange: list.isParent,
    moments: list.moments.map((m) => kidMomentView(m, kid)),
  };
}

export default function KidMilestones({ loaderData }: Route.ComponentProps) {
  const { kid, canChange, moments } = loaderData;
  const heading = `${kid.name}'s Milestones`;
  return (
    <div className="page kid-moments">
      <title>{`${heading} – Sweet Moments`}</title>
      <h1>{heading}</h1>
      <StoryLinks kidId={kid.id} current="milestones" />
      {moments.length === 0 ? (
        <EmptyState
          art="moments"
          text={
            <>
              No milestones yet.{" "}
              {canChange ? (
                <>
                  Mark a moment as a milestone when you{" "}
                  <Link to={href("/kids/:kidId/dailyLogs/new", { kidId: String(kid.id) })}>add</Link> or update it.
                </>
              ) : null}
            </>
          }
        />
      ) : (
        <StoryMomentList moments={moments} />
      )}
    </div>
  );
}
