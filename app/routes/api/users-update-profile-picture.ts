import { pictureUploadResponse } from "~/api/profile-picture.server";
import { apiRoute } from "~/api/route.server";

// PUT /api/users/update-profile-picture (multipart `image`): 200 {"user_image_url"}; the old
// picture's files are deleted. 404 (C) "profile picture not found" when there is none; 400 (B).
const route = apiRoute({
  PUT: ({ request }, user) => pictureUploadResponse(request, user, { mustExist: true, successStatus: 200 }),
});

export const loader = route.loader;
export const action = route.action;
