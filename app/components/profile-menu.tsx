import { useEffect, useRef } from "react";
import { Form, Link, useLocation } from "react-router";
import { PersonIcon } from "./icons";
import { MODAL_HOME_ATTRIBUTE, withParam } from "./modal";
import { photoUrl, type Photo } from "~/images/photo";

export type MenuUser = { username: string; email: string; photo: Photo | null; displayName: string };

/**
 * The avatar button and its menu. A <details> element, so it opens and closes with JavaScript off
 * and by keyboard; with JavaScript it also closes on an outside click, on Escape and after a choice.
 */
export function ProfileMenu({ user }: { user: MenuUser | null }) {
  const ref = useRef<HTMLDetailsElement>(null);
  const location = useLocation();

  useEffect(() => {
    const details = ref.current;
    if (!details) return;
    const onDocClick = (e: MouseEvent) => {
      if (details.open && !details.contains(e.target as Node)) details.open = false;
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && details.open) {
        details.open = false;
        details.querySelector("summary")?.focus();
      }
    };
    document.addEventListener("click", onDocClick);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("click", onDocClick);
      document.removeEventListener("keydown", onKey);
    };
  }, []);

  // close after navigating (a menu item was chosen); not on the first render, so a menu opened
  // before the page finished loading its scripts stays open
  const lastLocation = useRef(location.pathname + location.search);
  useEffect(() => {
    const here = location.pathname + location.search;
    if (here === lastLocation.current) return;
    lastLocation.current = here;
    if (ref.current) ref.current.open = false;
  }, [location.pathname, location.search]);

  const modalLink = (name: string) => withParam(location.pathname, location.search, "modal", name);

  return (
    <details className="profile-menu" ref={ref}>
      <summary
        className="profile-menu__button"
        aria-label={user ? `Account menu for ${user.username}` : "Account menu"}
        {...{ [MODAL_HOME_ATTRIBUTE]: "" }}
      >
        {user?.photo ? (
          <img className="avatar" src={photoUrl(user.photo, user.photo.widths[0])} alt="" width="36" height="36" />
        ) : (
          <PersonIcon className="avatar avatar--icon" />
        )}
      </summary>
      <div className="profile-menu__panel">
        {user ? (
          <ul className="profile-menu__list">
            <li className="profile-menu__who">
              <span className="profile-menu__username">{user.username}</span>
              <span className="profile-menu__email">{user.email}</span>
            </li>
            <li>
              <Link to={modalLink("picture")} preventScrollReset>
                {user.photo ? "Update/Delete profile picture" : "Add profile picture"}
              </Link>
            </li>
            <li>
              <Link to="/current/friends">Friends</Link>
            </li>
            <li>
              <Link to="/settings">Settings</Link>
            </li>
            <li>
              <Form method="post" action="/logout">
                <button type="submit" className="link-button">
                  Log Out
                </button>
              </Form>
            </li>
          </ul>
        ) : (
          <ul className="profile-menu__list">
            <li>
              <Link to={modalLink("login")} preventScrollReset>
                Log In
              </Link>
            </li>
            <li>
              <Link to={modalLink("signup")} preventScrollReset>
                Sign Up
              </Link>
            </li>
          </ul>
        )}
      </div>
    </details>
  );
}
