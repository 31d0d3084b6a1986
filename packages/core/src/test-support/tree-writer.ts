/**
 * Writes through a LocalTree in each of its ways, each followed by a mark (an access(2) of
 * `/satchel-mark/<name>`), for local-tree-durability.test.ts to read in a strace of this
 * process: `tsx tree-writer.ts <root>`.
 */
import { accessSync } from 'node:fs';
import { SYNCFS_FROM } from '@satchel/client/sync/flush-files.js';
import { LocalTree } from '@satchel/client/sync/local-tree.js';
import { JOURNAL_FILE } from '@satchel/client/sync/tree.js';

const root = process.argv[2];
if (root === undefined) throw new Error('usage: tree-writer.ts <root>');
const tree = new LocalTree(root);

function mark(name: string): void {
  try {
    accessSync(`/satchel-mark/${name}`);
  } catch {
    // it never exists: the call is the mark
  }
}

async function* text(value: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(value, 'utf8');
}

async function group(prefix: string, count: number): Promise<void> {
  const written = tree.writeGroup();
  for (let i = 0; i < count; i++) await written.add(`${prefix}/d${i % 3}/f${i}.txt`, text(`${i}`));
  for (const outcome of await written.commit()) {
    if ('error' in outcome) throw outcome.error;
  }
}

mark('start');
await tree.write('one/two/file.txt', text('one'));
mark('write');
await group('large', SYNCFS_FROM + 6);
mark('large-group');
await group('small', 5);
mark('small-group');
await tree.rename('one/two/file.txt', 'moved/here/file.txt');
mark('rename');
// Removals, then the state told of them: a file from a folder that keeps others, and one
// whose folders go with it.
await tree.remove('large/d0/f0.txt');
await tree.remove('moved/here/file.txt');
await tree.appendState(JOURNAL_FILE, '{}\n');
mark('remove');
