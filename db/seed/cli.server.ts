import { db } from "~/lib/db.server";
import { deleteImageFiles } from "~/images/storage.server";
import { seedDemo } from "./demo.server";

/** Entry for `npm run db:seed` (server/seed.mjs). The replaced demo photos' files go after the commit. */
export async function run() {
  const { imageKeys } = await seedDemo({ verbose: true });
  await deleteImageFiles(imageKeys);
  await db().destroy();
}
