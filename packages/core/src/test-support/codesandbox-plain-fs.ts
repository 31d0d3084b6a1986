/** A CodeSandbox `client.fs` as an SDK without `fs.batchWrite` would give it. */
import type { CsbFileSystem } from '../sandbox/codesandbox-fs.js';

export function withoutBatchWrite(fs: CsbFileSystem): CsbFileSystem {
  return {
    readdir: (path) => fs.readdir(path),
    readFile: (path) => fs.readFile(path),
    writeFile: (path, content, opts) => fs.writeFile(path, content, opts),
    stat: (path) => fs.stat(path),
    rename: (from, to, overwrite) => fs.rename(from, to, overwrite),
    remove: (path, recursive) => fs.remove(path, recursive),
    mkdir: (path, recursive) => fs.mkdir(path, recursive),
    watch: (path, options) => fs.watch(path, options),
  };
}
