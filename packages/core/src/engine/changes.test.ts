import { describe, expect, it } from 'vitest';
import { openTemp } from '../test-support/temp.js';

describe('change feed', () => {
  it('lists every mutation in seq order from any cursor', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', '1', { session: 'run-1' });
    await satchel.writeFile('ws', '/d/b.txt', '2');
    await satchel.move('ws', '/a.txt', '/c.txt');
    const all = await satchel.listChanges('ws');
    expect(all.events.map((e) => [e.seq, e.type, e.path, e.deleted])).toEqual([
      [1, 'write', '/a.txt', false],
      [2, 'mkdir', '/d', false],
      [2, 'write', '/d/b.txt', false],
      [3, 'move', '/a.txt', true],
      [3, 'move', '/c.txt', false],
    ]);
    expect(all.cursor).toBe(3);
    expect(all.events[0]).toMatchObject({ actor: 'admin', session: 'run-1', version: 1 });
    expect(all.events[4]?.origin).toEqual({ path: '/a.txt', seq: 1 });
    const later = await satchel.listChanges('ws', { after: 2 });
    expect(later.events.map((e) => e.seq)).toEqual([3, 3]);
    const none = await satchel.listChanges('ws', { after: 3 });
    expect(none).toEqual({ events: [], cursor: 3 });
  });

  it('refuses a cursor past the head, naming the head, instead of waiting below it', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', '1');
    const refused = satchel.listChanges('ws', { after: 7, waitSeconds: 5 });
    await expect(refused).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'after', after: 7, head: 1, reason: 'cursor_beyond_head' },
    });
    await expect(refused).rejects.toThrow(/past the head of ws \(seq 1\)/);
    // A workspace deleted and created again starts its seqs over: old cursors are past its head.
    await satchel.deleteWorkspace('ws');
    await satchel.createWorkspace('ws');
    await expect(satchel.listChanges('ws', { after: 1 })).rejects.toMatchObject({
      data: { head: 0 },
    });
  });

  it('pages without splitting a change, and filters by path', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFiles('ws', [
      { path: '/x/1', content: '1' },
      { path: '/x/2', content: '2' },
    ]);
    await satchel.remove('ws', '/x', { recursive: true });
    await satchel.writeFile('ws', '/y', 'y');
    const seen: number[] = [];
    let after = 0;
    for (let page = 0; page < 10; page++) {
      const { events, cursor } = await satchel.listChanges('ws', { after, limit: 2 });
      if (events.length === 0) break;
      // Every seq on a page is complete: none of its events is left for the next page.
      const full = await satchel.listChanges('ws', { after: after, limit: 1000 });
      for (const seq of new Set(events.map((e) => e.seq))) {
        expect(events.filter((e) => e.seq === seq).length).toBe(
          full.events.filter((e) => e.seq === seq).length,
        );
      }
      seen.push(...events.map((e) => e.seq));
      after = cursor;
    }
    const total = (await satchel.listChanges('ws', { limit: 1000 })).events.length;
    expect(seen.length).toBe(total);
    const underX = await satchel.listChanges('ws', { path: '/x' });
    expect(underX.events.every((e) => e.path === '/x' || e.path.startsWith('/x/'))).toBe(true);
    expect(underX.events.some((e) => e.path === '/y')).toBe(false);
  });

  it('long-polls: a waiting reader wakes as soon as a change commits', async () => {
    const { satchel } = await openTemp();
    const started = Date.now();
    const waiting = satchel.listChanges('ws', { after: 0, waitSeconds: 10 });
    setTimeout(() => void satchel.writeFile('ws', '/late.txt', 'x'), 100);
    const page = await waiting;
    expect(page.events.map((e) => e.path)).toEqual(['/late.txt']);
    expect(Date.now() - started).toBeLessThan(2000);
    const timedOut = await satchel.listChanges('ws', { after: page.cursor, waitSeconds: 0.2 });
    expect(timedOut.events).toEqual([]);
  });

  it('is refused to principals who cannot read the workspace', async () => {
    const { satchel } = await openTemp();
    const engine = satchel;
    await engine.createPrincipal({ name: 'stranger' });
    const stranger = engine.as(
      await engine.authenticate((await engine.createKey({ principal: 'stranger' })).key),
    );
    await expect(stranger.listChanges('ws')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
