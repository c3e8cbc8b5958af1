import { data } from "react-router";
import type { Route } from "./+types/moment-new";
import { requireUser } from "~/lib/auth.server";

// Not built yet: answers not-found after the sign-in guard.
export async function loader({ request }: Route.LoaderArgs) {
  await requireUser(request);
  throw data("Not found", { status: 404 });
}

export default function Placeholder() {
  return null;
}
