import type { Route } from "./+types/settings-export";
import { exportResponse } from "~/web/export.server";
import { requireUser } from "~/web/auth.server";

// GET /settings/export: "Download all my data" (docs/spec.md §2): the signed-in user's ZIP.
export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request);
  return (await exportResponse(request, user.id)) ?? new Response("Not found", { status: 404 });
}

/** Only GET: any other method gets a plain 405 (this route has no page to show). */
export async function action() {
  return new Response("Method not allowed", {
    status: 405,
    headers: { "Content-Type": "text/plain; charset=utf-8", Allow: "GET, HEAD", "X-Content-Type-Options": "nosniff" },
  });
}
