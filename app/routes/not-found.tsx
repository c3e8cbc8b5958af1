import { data } from "react-router";

// Any path not in app/routes.ts: the root error boundary renders the not-found page.
export async function loader() {
  throw data("Not found", { status: 404 });
}
export async function action() {
  throw data("Not found", { status: 404 });
}
export default function NotFound() {
  return null;
}
