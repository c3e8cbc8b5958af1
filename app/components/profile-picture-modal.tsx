import { Modal } from "./modal";
import type { Photo } from "~/images/photo";

// Placeholder until the photos work lands: the modal's titles are the spec's.
export function ProfilePictureModal({
  user,
  closeTo,
}: {
  user: { photo: Photo | null };
  closeTo: string;
  confirm: boolean;
}) {
  return (
    <Modal title={user.photo ? "Update Or Delete Your Profile Picture" : "Add Your Profile Picture"} closeTo={closeTo}>
      <p>Profile pictures are coming soon.</p>
    </Modal>
  );
}
