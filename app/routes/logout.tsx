import { redirect } from "react-router";
import type { Route } from "./+types/logout";
import { logOutHeaders } from "~/web/auth.server";

// Log Out is a POST (a GET could be forged by any page into logging someone out).
export async function action({ request }: Route.ActionArgs) {
  return redirect("/", { headers: await logOutHeaders(request) });
}

export async function loader() {
  return redirect("/");
}
