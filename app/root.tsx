import { isRouteErrorResponse, Link, Links, Meta, Outlet, Scripts, ScrollRestoration, useLocation } from "react-router";
import { useEffect } from "react";
import type { Route } from "./+types/root";
import "./app.css";
import { LogoIcon } from "./components/icons";
import { ProfileMenu } from "./components/profile-menu";
import { NotificationsLink } from "./components/notifications";
import { useListLinkNavigation } from "./components/list-link";
import { useNonce } from "./components/nonce";
import { DeferredScriptsLoader } from "./components/deferred-scripts";
import { RootModals } from "./components/root-modals";
import { PasskeyOffer } from "./components/passkeys";
import { useRootData, type RootData } from "./components/root-data";
import { getUser } from "./web/auth.server";
import { newSubmissionToken } from "./models/submissions.server";
import { config } from "./lib/config.server";
import { securityMiddleware } from "./web/security.server";
import { uploadScopeMiddleware } from "./web/uploads.server";
import { displayName } from "./lib/names";
import { SERVER_ERROR_MESSAGE } from "./lib/messages";
import { requestGuard } from "./web/request-guard.server";
import { unreadOnce } from "./web/conditional.server";

export const middleware: Route.MiddlewareFunction[] = [securityMiddleware, requestGuard, uploadScopeMiddleware];

export async function loader({ request, context }: Route.LoaderArgs): Promise<RootData> {
  const user = await getUser(request);
  const cfg = config();
  // read once per request: a conditional page's ETag counts it too (app/web/conditional.server.ts)
  const unread = user ? await unreadOnce(context, user.id) : 0;
  return {
    unreadNotifications: unread,
    user: user
      ? { id: user.id, username: user.username, email: user.email, photo: user.photo, displayName: displayName(user) }
      : null,
    demo: cfg.demo,
    // the one-time token of the page's creating forms (app/forms/submission.ts): new with every
    // load, and with every action's revalidation
    formToken: newSubmissionToken(),
    footer: { author: cfg.authorName, repoUrl: cfg.repoUrl, profileUrl: cfg.profileUrl },
  };
}

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
        <DeferredScriptsLoader nonce={nonce} />
      </body>
    </html>
  );
}

function Shell({ children }: { children: React.ReactNode }) {
  const data = useRootData();
  const user = data?.user ?? null;
  const year = new Date().getFullYear();
  // GOV.UK's progressive-enhancement hook: styles and tests can tell when scripts are running, on
  // every page the error pages included
  useEffect(() => {
    document.body.classList.add("js-enabled");
  }, []);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <header className="site-header">
        <Link to={user ? "/my-kids-list" : "/"} className="brand">
          <LogoIcon />
          <span className="brand__name">Sweet Moments</span>
        </Link>
        <div className="site-header__end">
          {user ? (
            <nav aria-label="Main" className="site-nav">
              <Link to="/feed">Feed</Link>
            </nav>
          ) : null}
          {user ? <NotificationsLink unread={data?.unreadNotifications ?? 0} /> : null}
          <ProfileMenu user={user} />
        </div>
      </header>
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <footer className="site-footer">
        <p>
          © {year} {data?.footer.author ?? "Sweet Moments"} ·{" "}
          <a href={data?.footer.repoUrl ?? "#"} rel="noopener noreferrer">
            Code repository
          </a>{" "}
          ·{" "}
          <a href={data?.footer.profileUrl ?? "#"} rel="noopener noreferrer">
            Professional profile
          </a>
        </p>
      </footer>
    </>
  );
}

export default function App() {
  useListLinkNavigation();
  return (
    <Shell>
      <Outlet />
      {/* after the page: it appears once an answer comes back, and must move nothing the visitor
          may be about to tap (docs/decisions/0055-passkeys.md) */}
      <PasskeyOffer />
      <RootModals />
    </Shell>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const location = useLocation();
  let title = SERVER_ERROR_MESSAGE;
  let detail: string | null = null;
  let status = 500;
  if (isRouteErrorResponse(error)) {
    status = error.status;
    if (error.status === 404) {
      title = "Page not found";
      detail = "We could not find that page. It may have been removed, or you may not have access to it.";
    } else if (error.status < 500 || error.status === 503) {
      // 503: the database stayed locked past the write path's patience (docs/decisions/0017-*)
      title = typeof error.data === "string" && error.data ? error.data : "That request could not be handled.";
    }
  }
  return (
    <Shell>
      <title>{`${status === 404 ? "Page not found" : "Error"} – Sweet Moments`}</title>
      <div className="page narrow">
        <h1>{title}</h1>
        {detail ? <p>{detail}</p> : null}
        <p>
          <Link to="/">Go to the home page</Link>
          {location.pathname !== "/my-kids-list" ? (
            <>
              {" "}
              or <Link to="/my-kids-list">My Kids</Link>
            </>
          ) : null}
          .
        </p>
      </div>
    </Shell>
  );
}
