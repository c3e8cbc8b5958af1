// @ts-check
// Files that only the server's own user may read: the database and its WAL and SHM files, the
// backups (they hold the session secret), the session secret, the mail outbox
// (docs/decisions/0042-uploads-limits-private-files-and-one-line-text.md). A mode given when a
// file or folder is made is only an upper bound (the umask takes bits away, never adds), so the
// mode is also set after: the same result under any umask.
import fs from "node:fs";
import path from "node:path";

/**
 * Makes `dir` with its missing parents; the folders it makes are 0700 whatever the umask (a mode
 * given to mkdir is only an upper bound, so they are set again). Folders that were there keep the
 * mode their owner gave them; `always` sets `dir` itself to 0700 in any case (folders only we use,
 * such as the mail outbox). docs/decisions/0042-uploads-limits-private-files-and-one-line-text.md.
 * @param {string} dir @param {{ always?: boolean }} [opts]
 */
export function privateDir(dir, opts = {}) {
  const target = path.resolve(dir);
  const first = fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  if (first) {
    // every folder from the first one made down to `dir`
    for (let d = target; ; d = path.dirname(d)) {
      fs.chmodSync(d, 0o700);
      if (d === first || d === path.dirname(d)) break;
    }
  } else if (opts.always) fs.chmodSync(target, 0o700);
}

/**
 * Sets `file` to 0600 (owner only) whatever the umask it was made under: the database and its WAL
 * and SHM files, backups, the session secret, the mail outbox. A file that is not there is fine,
 * and so is one we may not change (e.g. a read-only secret mounted by the operator).
 * @param {string} file
 */
export function privateFile(file) {
  try {
    fs.chmodSync(file, 0o600);
  } catch (error) {
    const code = /** @type {{ code?: string }} */ (error).code;
    if (code !== "ENOENT" && code !== "EPERM" && code !== "EROFS") throw error;
  }
}
