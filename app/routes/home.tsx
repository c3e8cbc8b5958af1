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
        <div className="hero__text">
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
          <p className="hero__promise">
            <strong>Private by design.</strong> No ads, no public pages: only the family and friends you confirm ever
            see your kids.
          </p>
        </div>
        <SampleMoment />
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

/**
 * What the product is at a glance (docs/design.md "Pages that welcome"): a sample moment drawn here
 * (inline SVG and CSS, in the theme's colours; no photo to download). One image for screen readers,
 * described in words.
 */
function SampleMoment() {
  return (
    <div
      className="sample-moment"
      role="img"
      aria-label="An example moment: a photo of a first step in the garden, titled First steps, with its date, the child's age and three likes"
    >
      <svg
        className="sample-moment__photo"
        viewBox="0 0 320 220"
        width="320"
        height="220"
        aria-hidden="true"
        focusable="false"
      >
        <rect width="320" height="220" className="art-sky" />
        <circle cx="250" cy="60" r="26" className="art-sun" />
        <path d="M0 170 Q80 120 170 160 T320 150 V220 H0z" className="art-hill" />
        <path d="M0 200 Q120 160 230 195 T320 190 V220 H0z" className="art-hill-2" />
        <g transform="translate(120 96)">
          <circle cx="20" cy="12" r="12" className="art-face" />
          <path d="M8 30h24l4 28H4z" className="art-heart" />
          <path d="M10 58l-6 20M30 58l8 18M6 38l-10 10M34 38l10-12" className="art-line" />
        </g>
      </svg>
      <div className="sample-moment__text">
        <span className="sample-moment__title">First steps</span>
        <span className="sample-moment__date">14 June · Elsa was 1 year, 2 months</span>
        <span className="sample-moment__likes">
          <span className="icon icon--heart-filled" /> 3 likes · Grandma: “So proud!”
        </span>
      </div>
    </div>
  );
}
