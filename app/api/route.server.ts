import type { ActionFunctionArgs, LoaderFunctionArgs } from "react-router";
import { apiError, apiHandler } from "./responses.server";
import { getUser, requireApiUser } from "~/web/auth.server";
import type { User } from "~/models/users.server";

export type ApiArgs = LoaderFunctionArgs | ActionFunctionArgs;
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export const notFound = () => apiError(404, "Not found");

/**
 * Builds a resource route's loader and action from a method table. The order of failures is
 * docs/api.md's: 401 for a signed-out caller first (cross-site 403 is the middleware's), then 404
 * for a method the path does not have, then the handler. Every handler is wrapped so a bug answers the
 * generic 500 JSON, never a stack trace.
 */
export function apiRoute(methods: Partial<Record<Method, (args: ApiArgs, user: User) => Promise<Response>>>) {
  const dispatch = apiHandler(async (args: ApiArgs) => {
    const user = await requireApiUser(args.request);
    const handler = pick(methods, args.request.method);
    return handler ? handler(args, user) : notFound();
  });
  return asLoaderAndAction(dispatch);
}

/** The same for the few public routes (log in, sign up, …): the handler gets the user or null. */
export function publicApiRoute(
  methods: Partial<Record<Method, (args: ApiArgs, user: User | null) => Promise<Response>>>,
) {
  const dispatch = apiHandler(async (args: ApiArgs) => {
    const handler = pick(methods, args.request.method);
    return handler ? handler(args, await getUser(args.request)) : notFound();
  });
  return asLoaderAndAction(dispatch);
}

function pick<T>(methods: Partial<Record<Method, T>>, method: string): T | undefined {
  const m = method.toUpperCase();
  return methods[(m === "HEAD" ? "GET" : m) as Method];
}

function asLoaderAndAction(dispatch: (args: ApiArgs) => Promise<Response>) {
  return {
    loader: dispatch as (args: LoaderFunctionArgs) => Promise<Response>,
    action: dispatch as (args: ActionFunctionArgs) => Promise<Response>,
  };
}
