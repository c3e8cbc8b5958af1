import { data } from "react-router";

// Not built yet.
export async function loader() {
  throw data("Not found", { status: 404 });
}
