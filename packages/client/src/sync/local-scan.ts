/**
 * The scan of a local tree (LocalTree.list): every entry beneath the root, walked through
 * verified folders (folders.ts).
 */
import { type Dirent, lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { at, type Folder, type Folders } from './folders.js';
import { isMissing } from './local-read.js';
import { SymlinkInPathError, TEMP_PREFIX, type TreeEntry } from './tree.js';

/** A write group's temporary file untouched for this long was left by a crash. */
const STALE_TEMP_MS = 60 * 60 * 1000;

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already, or not ours to remove: left
  }
}

/**
 * Synchronous calls on purpose: a scan is tens of thousands of lstat calls, and each promise
 * call costs a thread-pool round trip that dwarfs the syscall (3-5× slower for 10,000 files).
 * A folder is walked through its verified descriptor; one swapped for a link since its
 * parent was read is reported as the link it now is. Its entries are stat'ed by name from the
 * root, which the kernel resolves in ~3/4 of the time `/proc/self/fd` takes, and asked again
 * through the descriptor when the names no longer lead to it (`Folders.stillNamed`) or one
 * is not found.
 */
export function listTree(folders: Folders, prune: (dir: string) => boolean): TreeEntry[] {
  const out: TreeEntry[] = [];
  /** A listed entry's stats by `base/name`; by the folder's descriptor when not found so. */
  const statOf = (folder: Folder, base: string, name: string) => {
    if (base !== folder.path) {
      try {
        const st = lstatSync(`${base}/${name}`, { throwIfNoEntry: false });
        if (st !== undefined) return st;
      } catch {
        // a folder on the way is not one now: asked through the descriptor below
      }
    }
    return lstatSync(at(folder, name), { throwIfNoEntry: false });
  };
  const statFiles = (folder: Folder, dir: string, names: readonly string[], base: string) => {
    const found: TreeEntry[] = [];
    for (const name of names) {
      const st = statOf(folder, base, name);
      if (st === undefined || st.isDirectory()) continue;
      if (name.startsWith(TEMP_PREFIX)) {
        // A write group's file, never synced; one this old was left by a crash.
        if (Date.now() - st.mtimeMs > STALE_TEMP_MS) unlinkQuietly(at(folder, name));
        continue;
      }
      const type = st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : 'other';
      const path = dir === '' ? name : `${dir}/${name}`;
      const size = type === 'file' ? st.size : 0;
      found.push({ path, type, size, mtimeMs: st.mtimeMs, ino: st.ino });
    }
    return found;
  };
  const walk = (folder: Folder, dir: string): void => {
    let names: Dirent[];
    try {
      names = readdirSync(folder.path, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    const files: string[] = [];
    const subfolders: string[] = [];
    for (const d of names) (d.isDirectory() ? subfolders : files).push(d.name);
    let found = statFiles(folder, dir, files, folder.named);
    if (!folders.stillNamed(folder)) found = statFiles(folder, dir, files, folder.path);
    for (const entry of found) out.push(entry);
    for (const name of subfolders) {
      const path = dir === '' ? name : `${dir}/${name}`;
      if (prune(path)) continue;
      let sub: Folder;
      try {
        sub = folders.openChild(folder, name, path);
      } catch (error) {
        if (error instanceof SymlinkInPathError) {
          out.push({ path, type: 'symlink', size: 0, mtimeMs: 0 });
        } else if (!isMissing(error)) throw error;
        continue;
      }
      try {
        walk(sub, path);
      } finally {
        folders.close(sub);
      }
    }
  };
  let root: Folder;
  try {
    root = folders.openRoot();
  } catch (error) {
    if (isMissing(error)) return out;
    throw error;
  }
  try {
    walk(root, '');
  } finally {
    folders.close(root);
  }
  return out;
}
