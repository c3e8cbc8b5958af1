import { data } from "react-router";
import type { Route } from "./+types/moment-social";
import { requireUser } from "~/lib/auth.server";

// Not built yet: the like/unlike/comment form posts of the likes-and-comments block.
export async function action({ request }: Route.ActionArgs) {
  await requireUser(request);
  throw data("Not found", { status: 404 });
}
export async function loader({ request }: Route.LoaderArgs) {
  await requireUser(request);
  throw data("Not found", { status: 404 });
}
