import { seedDemo } from "./seed.server";
import { db } from "./db.server";
import { deleteImageDirs } from "./seed-files.server";

/** Entry for `npm run db:seed` (server/seed.mjs). */
export async function run() {
  const { imageKeys } = await seedDemo({ verbose: true });
  await deleteImageDirs(imageKeys);
  await db().destroy();
}
