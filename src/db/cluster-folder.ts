/**
 * Where an embedded cluster's files live. Normally in the folder asked for (DATA_DIR/postgres). As
 * root the cluster runs as the `postgres` user, who must reach its folder; when the folder lies below
 * one that user cannot enter (a root-only clone, /root/…), the cluster lives in
 * /var/lib/daybook/clusters/<name>-<hash of the folder's path> instead, and the folder asked for is
 * a symbolic link to it. No folder's permissions are changed (docs/operating.md).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { StartRefused } from './folder-lock';
import { ROOT_STATE_DIR, canReach, makeSharedFolder, type ClusterUser } from './pg-programs';

/** The folder a cluster asked for at `dir` gets when its user cannot reach `dir`. */
export function elsewhereFolder(dir: string): string {
  const hash = crypto.createHash('sha256').update(dir).digest('hex').slice(0, 16);
  const name = path.basename(path.dirname(dir)).replace(/^\.+/, '') || 'data';
  return path.join(ROOT_STATE_DIR, 'clusters', `${name}-${hash}`);
}

/**
 * The real folder of the cluster asked for at `dir` (absolute). With `create`, a cluster that does
 * not exist yet gets a folder its user can reach (a link to one elsewhere if need be), created empty,
 * owned by that user, 0700 as PostgreSQL requires. Throws StartRefused for a folder it cannot use.
 */
export function clusterFolder(dir: string, who: ClusterUser | undefined, options: { create: boolean }): string {
  const found = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (found?.isSymbolicLink()) {
    const target = path.resolve(path.dirname(dir), fs.readlinkSync(dir));
    if (!fs.existsSync(target)) {
      throw new StartRefused(`${dir} links to ${target}, which is gone; restore that folder, or remove the link to start with an empty database.`);
    }
    return target;
  }
  if (found) {
    if (!found.isDirectory()) throw new StartRefused(`${dir} is not a folder; move it away so the embedded PostgreSQL can use that name.`);
    if (who && !canReach(who, dir)) {
      throw new StartRefused(
        `the postgres user, which runs the embedded PostgreSQL, cannot reach ${dir} (a folder above it is closed to other users);` +
          ` move the folder ${dir} to ${elsewhereFolder(dir)} and link it (ln -s), or set DATA_DIR to a folder that user can reach.`,
      );
    }
    return dir;
  }
  if (!options.create) return dir;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  let folder = dir;
  if (who && !canReach(who, path.dirname(dir))) {
    folder = elsewhereFolder(dir);
    if (fs.existsSync(folder)) {
      throw new StartRefused(
        `${folder} holds the database of an earlier ${dir} (its link is gone); link it again (ln -s ${folder} ${dir})` +
          ` to use it, or delete it (rm -rf ${folder}) to start with an empty database.`,
      );
    }
    makeSharedFolder(path.dirname(folder));
  }
  fs.mkdirSync(folder, { mode: 0o700 });
  if (who) fs.chownSync(folder, who.uid, who.gid);
  fs.chmodSync(folder, 0o700);
  if (folder !== dir) fs.symlinkSync(folder, dir);
  return folder;
}
