import { PICTURE_NOT_FOUND } from "~/api/profile-picture.server";
import { apiError, json } from "~/api/responses.server";
import { apiRoute } from "~/api/route.server";
import { deleteProfilePicture } from "~/models/profile-pictures.server";

// DELETE /api/users/delete-profile-picture: 200 {"message"}; the picture's files are deleted.
// 404 (C) "profile picture not found" when there is none.
const route = apiRoute({
  DELETE: async (_args, user) => {
    if (!(await deleteProfilePicture(user.id))) return apiError(404, PICTURE_NOT_FOUND);
    return json({ message: "Your profile picture is deleted successfully" });
  },
});

export const loader = route.loader;
export const action = route.action;
