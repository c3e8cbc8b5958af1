import { useCallback, useEffect, useRef, useSyncExternalStore, type FormEvent } from "react";
import { SUBMISSION_FIELD } from "~/forms/submission";
import { useRootData } from "./root-data";

// The pieces of app/components/forms.tsx that pages without a validated form need too (a kid's
// moments, the like and comment block, the confirm dialogs): no conform or zod here, so those pages'
// scripts stay small (docs/decisions/0035-slow-networks.md).

const noSubscribe = () => () => {};
/** False in the server render and during hydration, true once React runs in the browser. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscribe,
    () => true,
    () => false,
  );
}

export function FieldError({ id, errors, className }: { id: string; errors?: string[]; className?: string }) {
  if (!errors?.length) return null;
  return (
    <p id={id} className={className ? `field-error ${className}` : "field-error"}>
      <span className="visually-hidden">Error: </span>
      {errors.join(" ")}
    </p>
  );
}

/**
 * The hidden one-time submission token of a creating form (app/forms/submission.ts): the server
 * runs a submission once per token, so a form sent twice (a double click without JavaScript, a
 * resend) creates one thing. The token comes from the root loader, fresh with every page and every
 * action's revalidation.
 */
export function SubmissionToken() {
  const token = useRootData()?.formToken;
  return token ? <input type="hidden" name={SUBMISSION_FIELD} value={token} /> : null;
}

type SubmitHandler = (event: FormEvent<HTMLFormElement>) => void;

/** If the router never reports the submission as under way, the form opens again after this long. */
const UNSTARTED_RELEASE_MS = 2000;

/**
 * With JavaScript, a form whose submission is on its way ignores further submits (a double click,
 * Enter pressed twice): the submit event is cancelled, so React Router never sends it. `busy` is
 * the router's view (the navigation's or the fetcher's state is not idle); the form opens again
 * when it returns to idle. Wrap the form's own submit handler (conform's, a check), which runs
 * first and may still cancel the submit (invalid fields: the form stays open):
 *
 *   const once = useSubmitOnce(navigation.state !== "idle");
 *   <Form {...once(getFormProps(form))}>   or   <fetcher.Form {...once({ onSubmit: check })}>
 */
export function useSubmitOnce(busy: boolean) {
  const inFlight = useRef(false);
  const seenBusy = useRef(false);
  const serial = useRef(0);
  useEffect(() => {
    if (busy) seenBusy.current = true;
    else if (seenBusy.current) {
      seenBusy.current = false;
      inFlight.current = false;
    }
  }, [busy]);
  return useCallback(
    <P extends { onSubmit?: SubmitHandler }>(props?: P): Omit<P, "onSubmit"> & { onSubmit: SubmitHandler } => {
      const inner = props?.onSubmit;
      return {
        ...(props ?? ({} as P)),
        onSubmit(event: FormEvent<HTMLFormElement>) {
          if (inFlight.current) {
            event.preventDefault();
            return;
          }
          inner?.(event);
          if (event.defaultPrevented) return; // refused by the form's own check: not sent
          inFlight.current = true;
          seenBusy.current = false;
          const mine = ++serial.current;
          window.setTimeout(() => {
            if (serial.current === mine && !seenBusy.current) inFlight.current = false;
          }, UNSTARTED_RELEASE_MS);
        },
      };
    },
    [],
  );
}
