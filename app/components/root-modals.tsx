import { lazy, Suspense } from "react";
import { useLocation } from "react-router";
import { Modal, withParam } from "./modal";
import { useRootData } from "./root-data";
// the picture modal's styles stay in the root's stylesheet: a page opened with ?modal=picture
// (JavaScript off) is rendered on the server with the modal and needs them at once
import "~/styles/photos.css";

// The modals' forms (conform + zod) load only when a modal is open, not with every page
// (docs/decisions/0035-slow-networks.md). The server renders them in full (the document is sent
// once everything is ready: app/entry.server.tsx), so they work without JavaScript too.
const LoginForm = lazy(() => import("./auth-forms").then((m) => ({ default: m.LoginForm })));
const SignupForm = lazy(() => import("./auth-forms").then((m) => ({ default: m.SignupForm })));
const ProfilePictureModal = lazy(() =>
  import("./profile-picture-modal").then((m) => ({ default: m.ProfilePictureModal })),
);

/**
 * Modals opened by the `modal` search parameter from the profile menu: Log In and Sign Up for
 * visitors, the profile picture for signed-in users. The URL is the state, so they work without
 * JavaScript and survive a reload.
 */
export function RootModals() {
  return (
    <Suspense fallback={null}>
      <OpenModal />
    </Suspense>
  );
}

function OpenModal() {
  const location = useLocation();
  const data = useRootData();
  const params = new URLSearchParams(location.search);
  const modal = params.get("modal");
  if (!modal || !data) return null;
  const closeTo = withParam(location.pathname, location.search, "modal", null, { confirm: null });
  const here = closeTo;

  if (!data.user && modal === "login") {
    return (
      <Modal title="Log In" closeTo={closeTo}>
        <LoginForm id="login-modal" demo={data.demo} redirectTo={here === "/" ? null : here} inModal />
      </Modal>
    );
  }
  if (!data.user && modal === "signup") {
    return (
      <Modal title="Create your account" closeTo={closeTo}>
        <p className="modal__lead">Registration is easy</p>
        <SignupForm id="signup-modal" variant="modal" redirectTo={here === "/" ? null : here} inModal />
      </Modal>
    );
  }
  if (data.user && modal === "picture") {
    return <ProfilePictureModal user={data.user} closeTo={closeTo} confirm={params.get("confirm") === "delete"} />;
  }
  return null;
}
