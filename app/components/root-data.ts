import { useRouteLoaderData } from "react-router";
import type { loader } from "~/root";

export type RootData = Awaited<ReturnType<typeof loader>>;

/** The root loader's data from any component (the signed-in user, the demo flag, the footer). */
export function useRootData(): RootData | undefined {
  return useRouteLoaderData<typeof loader>("root");
}
