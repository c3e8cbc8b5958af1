import { Link } from "react-router";
import type { Route } from "./+types/my-kids";
import { requireUser } from "~/lib/auth.server";

export async function loader({ request }: Route.LoaderArgs) {
  await requireUser(request);
  return { kids: [] as { id: number; name: string }[] };
}

export default function MyKids({ loaderData }: Route.ComponentProps) {
  return (
    <div className="page">
      <title>My Kids – Sweet Moments</title>
      <h1>My Kids</h1>
      <p className="button-row">
        <Link to="/current/friends" className="button button--secondary">
          Friends
        </Link>
        <Link to="/kids/add-new" className="button button--primary">
          Add Kid
        </Link>
      </p>
      {loaderData.kids.length === 0 ? <p className="empty">No kids found. Please add your kid.</p> : null}
    </div>
  );
}
