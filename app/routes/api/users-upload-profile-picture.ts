import { pictureUploadResponse } from "~/api/profile-picture.server";
import { apiRoute } from "~/api/route.server";

// POST /api/users/upload-profile-picture (multipart `image`): 201 {"user_image_url"}; any old
// picture is replaced and its files deleted. 400 (B) `image`: required / not an image / too large.
const route = apiRoute({
  POST: ({ request }, user) => pictureUploadResponse(request, user, { mustExist: false, successStatus: 201 }),
});

export const loader = route.loader;
export const action = route.action;
