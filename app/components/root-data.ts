import { useRouteLoaderData } from "react-router";
import type { Photo } from "~/images/photo";

/** What the root loader (app/root.tsx) gives every page: the signed-in user, the demo flag, a form token, the footer. */
export type RootData = {
  user: { id: number; username: string; email: string; photo: Photo | null; displayName: string } | null;
  demo: boolean;
  /** Unread notification groups of the signed-in user (the header's "Notifications" link). */
  unreadNotifications: number;
  /** The one-time submission token for the page's creating forms (see SubmissionToken). */
  formToken: string;
  footer: { author: string; repoUrl: string; profileUrl: string };
};

/** The root loader's data from any component. */
export function useRootData(): RootData | undefined {
  return useRouteLoaderData<RootData>("root");
}
