/** Signals between processes through a watched file (two instances on one file: two processes). */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/temp.js';
import { DataDirSignals, type DataDirSignalsOptions } from './data-dir-signals.js';
import { type SignalsNode, signalsContract, until } from './signals.contract.js';
import type { Signal } from './signals.js';

const open: DataDirSignals[] = [];

afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

function node(
  file: string,
  options: DataDirSignalsOptions = {},
): SignalsNode & {
  signals: DataDirSignals;
} {
  const signals = DataDirSignals.open(file, options);
  open.push(signals);
  const heard: Signal[] = [];
  signals.subscribe((signal) => heard.push(signal));
  return { signals, heard };
}

describe('DataDirSignals', () => {
  signalsContract(async () => {
    const file = join(await tempDir(), 'satchel.db-signals');
    return [node(file), node(file)];
  });

  it('a file cut short makes the others re-read once, and signals flow again', async () => {
    const file = join(await tempDir(), 'satchel.db-signals');
    // Small enough that a few signals make a reader start the file over.
    const a = node(file, { maxBytes: 300 });
    const b = node(file, { maxBytes: 300 });
    for (let i = 0; i < 20; i++) {
      a.signals.publish({ kind: 'change', workspace: `w${i}` });
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await until(() => b.heard.some((s) => s.kind === 'change' && s.workspace === 'w19'));
    expect((await readFile(file)).byteLength).toBeLessThan(600);
    // Cut short behind b's back, then grown past where it had read: it re-reads, then hears.
    await writeFile(file, 'x'.repeat(1000));
    b.heard.length = 0;
    a.signals.publish({ kind: 'change', workspace: 'after' });
    await until(() => b.heard.some((s) => s.kind === 'resync'));
    a.signals.publish({ kind: 'change', workspace: 'again' });
    await until(() => b.heard.some((s) => s.kind === 'change' && s.workspace === 'again'));
  });

  it('where the file cannot be opened, signals stay in the process and the timer re-checks', async () => {
    const file = join(await tempDir(), 'missing', 'satchel.db-signals');
    const a = node(file, { recheckMs: 60_000 });
    expect(a.signals.watching).toBe(false);
    expect(a.signals.recheckMs).toBe(1000);
    a.signals.publish({ kind: 'change', workspace: 'here' });
    expect(a.heard).toEqual([{ kind: 'change', workspace: 'here' }]);
  });

  it('while the watch works, receivers re-check at the configured pace', async () => {
    const a = node(join(await tempDir(), 'satchel.db-signals'), { recheckMs: 5000 });
    expect(a.signals.watching).toBe(true);
    expect(a.signals.recheckMs).toBe(5000);
  });
});
