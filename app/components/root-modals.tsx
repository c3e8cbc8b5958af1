import { useLocation } from "react-router";
import { LoginForm, SignupForm } from "./auth-forms";
import { Modal, withParam } from "./modal";
import { ProfilePictureModal } from "./profile-picture-modal";
import { useRootData } from "./root-data";

/**
 * Modals opened by the `modal` search parameter from the profile menu: Log In and Sign Up for
 * visitors, the profile picture for signed-in users. The URL is the state, so they work without
 * JavaScript and survive a reload.
 */
export function RootModals() {
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
