/**
 * What every `Signals` between nodes keeps (store/signals.ts), run by each implementation's
 * tests against two real nodes: delivery to the other node, and exactly once to the publisher's.
 */
import { expect, it } from 'vitest';
import type { Signal, Signals } from './signals.js';

export interface SignalsNode {
  readonly signals: Signals;
  /** Every signal its listener heard, in order. */
  readonly heard: Signal[];
}

/** Polls `check` every 10 ms; rejects after `ms`. */
export async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `twoNodes` opens two nodes that hear each other (closed by the caller's cleanup). */
export function signalsContract(twoNodes: () => Promise<[SignalsNode, SignalsNode]>): void {
  it('a signal published on one node reaches the other, and its own listeners once', async () => {
    const [a, b] = await twoNodes();
    a.signals.publish({ kind: 'change', workspace: 'reports' });
    a.signals.publish({ kind: 'lock', workspaceId: 'ws_1' });
    await until(() => b.heard.length === 2);
    expect(b.heard).toEqual([
      { kind: 'change', workspace: 'reports' },
      { kind: 'lock', workspaceId: 'ws_1' },
    ]);
    // Delivered in place at once; its own signal coming back is not delivered again.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(a.heard).toEqual(b.heard);
  });

  it('both directions, many signals: each one heard on the other node', async () => {
    const [a, b] = await twoNodes();
    for (let i = 0; i < 50; i++) {
      a.signals.publish({ kind: 'change', workspace: `a${i}` });
      b.signals.publish({ kind: 'change', workspace: `b${i}` });
      if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const names = (node: SignalsNode) =>
      new Set(node.heard.map((s) => (s.kind === 'change' ? s.workspace : s.kind)));
    await until(() => names(a).size >= 100 && names(b).size >= 100);
    for (let i = 0; i < 50; i++) {
      expect(names(a).has(`b${i}`) && names(b).has(`a${i}`)).toBe(true);
    }
  });

  it('after close, a node hears nothing more and the other still works', async () => {
    const [a, b] = await twoNodes();
    await b.signals.close();
    a.signals.publish({ kind: 'change', workspace: 'late' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(b.heard).toEqual([]);
    expect(a.heard).toEqual([{ kind: 'change', workspace: 'late' }]);
  });
}
