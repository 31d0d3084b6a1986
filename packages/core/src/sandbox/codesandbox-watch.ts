/**
 * The watch of a CodeSandbox tree (`client.fs.watch`). Events come in batches of `add`,
 * `change` and `remove`, each naming one or more paths: absolute in the VM, under another name
 * of the root (`/project/sandbox/…` for `/project/workspace/…`), or relative. The VM forgets a
 * watch when the connection drops; the SDK reconnects by itself but does not ask for the watch
 * again, so after every reconnect the watch is set up anew and the caller told that events may
 * have been missed meanwhile (`onRescan`: watch mode then runs a full cycle).
 */
import { STATE_DIR, type TreeWatcher } from '@satchel/client/sync/tree.js';
import type { CsbConnection, CsbFileSystem, CsbWatcher } from './codesandbox-fs.js';

export interface WatchTreeInput {
  readonly fs: CsbFileSystem;
  /** The tree's root in the VM, absolute. */
  readonly root: string;
  /** Other absolute names of the root in events. */
  readonly aliases: readonly string[];
  /** Runs one SDK call, bounded and its errors translated (the tree's `call`). */
  readonly call: <T>(run: () => Promise<T>) => Promise<T>;
  readonly connection?: CsbConnection;
  readonly onChange: (paths: readonly string[]) => void;
  readonly onRescan?: () => void;
}

/** The tree path of a path in a watch event (absolute, under an alias, or relative). */
export function treePathOf(
  root: string,
  aliases: readonly string[],
  vmPath: string,
): string | null {
  for (const base of [root, ...aliases]) {
    const prefix = `${base}/`;
    if (vmPath.startsWith(prefix)) return vmPath.slice(prefix.length);
    // The SDK rewrites `home/<user>/workspace/` to `sandbox/` without the leading slash.
    if (`/${vmPath}`.startsWith(prefix)) return vmPath.slice(prefix.length - 1);
  }
  return vmPath.startsWith('/') ? null : vmPath;
}

/** Watches `root` recursively; see the module comment for reconnects. */
export async function watchTree(input: WatchTreeInput): Promise<TreeWatcher> {
  const { fs, root, aliases, call, onChange } = input;
  const start = async (): Promise<{ watcher: CsbWatcher; dispose(): void }> => {
    const watcher = await call(() =>
      fs.watch(root, { recursive: true, excludes: [`${STATE_DIR}/**`, '.git/**'] }),
    );
    const subscription = watcher.onEvent((event) => {
      // `excludes` may not be honoured by the VM: the state folder is dropped here too.
      const paths = event.paths
        .map((p) => treePathOf(root, aliases, p))
        .filter((p): p is string => p !== null && p !== '' && !p.startsWith(STATE_DIR));
      if (paths.length > 0) onChange(paths);
    });
    return {
      watcher,
      dispose: () => {
        subscription.dispose();
        watcher.dispose();
      },
    };
  };

  let current = await start();
  let closed = false;
  let lost = false;
  let again: Promise<void> = Promise.resolve();
  const states = input.connection?.onStateChange((state) => {
    if (state === 'DISCONNECTED' || state === 'HIBERNATED') lost = true;
    if (state !== 'CONNECTED' || !lost || closed) return;
    lost = false;
    again = again.then(async () => {
      if (closed) return;
      try {
        const fresh = await start();
        current.dispose();
        current = fresh;
      } catch {
        // Not set up again: the periodic full cycle of watch mode still sees every change.
      }
      input.onRescan?.();
    });
  });
  return {
    close: async () => {
      closed = true;
      states?.dispose();
      await again;
      current.dispose();
    },
  };
}
