import { parseWithZod } from "@conform-to/zod/v4";
import { data, Link, redirect, useSearchParams, href } from "react-router";
import type { Route } from "./+types/login";
import { LoginForm } from "~/components/auth-forms";
import {
  authenticator,
  clientAddress,
  DEMO_EMAIL,
  LoginError,
  requireAnonymous,
  requireAnonymousPost,
  signedInDestination,
  startSession,
} from "~/web/auth.server";
import { safeRedirectPath } from "~/lib/redirect";
import { config } from "~/lib/config.server";
import { LoginSchema } from "~/forms/auth";
import { getUserWithPasswordByEmail } from "~/models/users.server";

export async function loader({ request }: Route.LoaderArgs) {
  await requireAnonymous(request);
  return { demo: config().demo };
}

export async function action({ request, context }: Route.ActionArgs) {
  // the body is read once (at most 1 MB: docs/decisions/0019-request-hardening.md); the strategy
  // gets a request of its two fields, not a second copy of the body
  const form = await request.formData();
  await requireAnonymousPost(request, form);
  const to = signedInDestination(form);

  if (form.get("intent") === "demo") {
    const demo = config().demo ? await getUserWithPasswordByEmail(DEMO_EMAIL) : null;
    if (!demo?.is_demo) {
      throw data("The demo account is not available on this site.", { status: 404 });
    }
    return redirect(to, { headers: { "Set-Cookie": await startSession(request, demo) } });
  }

  const submission = parseWithZod(form, { schema: LoginSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: ["password"] }), variant: "login" }, { status: 400 });
  }
  try {
    const credentials = new Request(request.url, {
      method: "POST",
      body: new URLSearchParams({ email: String(form.get("email")), password: String(form.get("password")) }),
    });
    const user = await authenticator(clientAddress(context)).authenticate("form", credentials);
    return redirect(to, { headers: { "Set-Cookie": await startSession(request, user) } });
  } catch (error) {
    if (error instanceof LoginError) {
      return data(
        { result: submission.reply({ fieldErrors: error.fieldErrors, hideFields: ["password"] }), variant: "login" },
        { status: error.status, headers: error.headers },
      );
    }
    throw error;
  }
}

export default function LoginPage({ loaderData, actionData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const redirectTo = safeRedirectPath(params.get("redirectTo"));
  return (
    <div className="page narrow">
      <h1>Log In</h1>
      <LoginForm
        id="login-page"
        title="Log In"
        lastResult={actionData?.result}
        redirectTo={redirectTo}
        demo={loaderData.demo}
      />
      <p>
        New here?{" "}
        <Link to={redirectTo ? `${href("/signup")}?redirectTo=${encodeURIComponent(redirectTo)}` : href("/signup")}>
          Sign up
        </Link>
      </p>
    </div>
  );
}
