import type { SubmissionResult } from "@conform-to/react";
import { useActionData } from "react-router";
import { useHydrated } from "./forms";

// Without JavaScript the browser sends the whole form and shows the answer as a new page: a file
// input is always empty there, so after a refused submission a file field says that its file must
// be chosen again (with JavaScript the page stays and the chosen file with it). docs/design.md

/** Whether the page is the answer to a refused submission, shown without JavaScript. */
export function useChooseAgain(): boolean {
  const refused = useActionData<{ result?: SubmissionResult<string[]> }>()?.result?.status === "error";
  const hydrated = useHydrated();
  return refused && !hydrated;
}

/** "The form was not saved, so your photo was not kept: …", for the field's aria-describedby. */
export function ChooseAgain({ id, what }: { id: string; what: "photo" | "clip" }) {
  return (
    <p id={id} className="field-again">
      The form was not saved, so your {what} was not kept: if you chose one, please choose it again.
    </p>
  );
}
