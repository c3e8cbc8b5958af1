import fs from "node:fs/promises";
import path from "node:path";
import { config } from "./config.server";

/** Removes the files of replaced demo photos (keys are ours: hex/base64url only). */
export async function deleteImageDirs(keys: string[]) {
  for (const key of keys) {
    if (!/^[A-Za-z0-9_-]+$/.test(key)) continue;
    await fs.rm(path.join(config().uploadsDir, key), { recursive: true, force: true });
  }
}
