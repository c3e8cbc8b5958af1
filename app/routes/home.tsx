import { Form, Link, useSearchParams } from "react-router";
import type { Route } from "./+types/home";
import { useRootData } from "~/components/root-data";

export default function Home(_: Route.ComponentProps) {
  const data = useRootData();
  const user = data?.user;
  const [params] = useSearchParams();
  return (
    <div className="landing">
      <title>Sweet Moments – Your Daily Dose Of Joy And Connection</title>
      {params.get("deleted") === "1" && !user ? (
        <p className="notice" role="status">
          Your account and everything in it have been deleted.
        </p>
      ) : null}
      <section className="hero">
        <h1 className="hero__title">Your Daily Dose Of Joy And Connection</h1>
        <p className="hero__lead">
          Sweet Moments is a private place to keep the little snapshots of your little ones: a photo, a few words, a
          date. Share them only with the family and friends you confirm, and let them like and comment.
        </p>
        {user ? (
          <p className="button-row">
            <Link to="/my-kids-list" className="button button--primary">
              Go to My Kids
            </Link>
          </p>
        ) : (
          <div className="button-row">
            <Link to="/?modal=signup" preventScrollReset className="button button--primary">
              Sign Up
            </Link>
            <Link to="/?modal=login" preventScrollReset className="button button--secondary">
              Log In
            </Link>
            {data?.demo ? (
              <Form method="post" action="/login">
                <input type="hidden" name="intent" value="demo" />
                <button type="submit" className="button button--secondary">
                  Try the Demo User
                </button>
              </Form>
            ) : null}
          </div>
        )}
      </section>
      <section className="features" aria-label="What you can do">
        <div className="feature">
          <h2>Keep a list of your kids</h2>
          <p>Each with a picture and their age in years, months and days.</p>
        </div>
        <div className="feature">
          <h2>Post sweet moments</h2>
          <p>A title, a few lines and a photo, for every day worth remembering.</p>
        </div>
        <div className="feature">
          <h2>Share privately</h2>
          <p>Only friends you confirm see your kids' moments, like them and comment.</p>
        </div>
      </section>
    </div>
  );
}
