import { describe, expect, it } from 'vitest';
import { catFile, openTemp } from '../test-support/temp.js';
import type { SatchelEngine } from './satchel-engine.js';

const text = async (satchel: SatchelEngine, path: string) =>
  (await catFile(satchel, path)).toString();

async function exists(satchel: SatchelEngine, path: string): Promise<boolean> {
  return satchel.stat('ws', path).then(
    () => true,
    () => false,
  );
}

/** An engine with a second principal, `other`, an editor of "ws". */
async function twoAgents() {
  const { satchel } = await openTemp();
  await satchel.createPrincipal({ name: 'other', kind: 'agent' });
  await satchel.setMember('ws', 'other', 'editor');
  const other = satchel.as(
    await satchel.authenticate((await satchel.createKey({ principal: 'other' })).key),
  );
  return { satchel, other };
}

describe('undo', () => {
  it('reverts a 100-file session but leaves the 3 files another agent changed since; undo of the undo restores them', async () => {
    const { satchel, other } = await twoAgents();
    const files = Array.from({ length: 100 }, (_, i) => i);
    await satchel.writeFiles(
      'ws',
      files.map((i) => ({ path: `/out/f${i}.txt`, content: `old ${i}\n` })),
    );
    for (const i of files) {
      await satchel.writeFile('ws', `/out/f${i}.txt`, `run ${i}\n`, { session: 'run-1' });
    }
    for (const i of [7, 42, 99]) await other.writeFile('ws', `/out/f${i}.txt`, `theirs ${i}\n`);

    const preview = await satchel.previewUndo('ws', { session: 'run-1' });
    expect(preview.summary).toMatchObject({ revert: 97, delete: 0, recreate: 0, conflicts: 3 });
    expect(preview.changes).toHaveLength(97);
    expect(preview.conflicts.map((c) => c.path)).toEqual([
      '/out/f42.txt',
      '/out/f7.txt',
      '/out/f99.txt',
    ]);
    const conflict = preview.conflicts[1];
    expect(conflict).toMatchObject({
      reason: 'changed_since',
      base: { deleted: false, author: 'admin', session: null },
      ours: { author: 'admin', session: 'run-1' },
      theirs: { author: 'other', session: null },
    });
    const f0 = preview.changes.find((c) => c.path === '/out/f0.txt');
    expect(f0).toMatchObject({ action: 'revert', type: 'file', forced: false });
    expect(f0?.diff).toContain('-run 0');
    expect(f0?.diff).toContain('+old 0');
    // A preview writes nothing.
    expect(await text(satchel, '/out/f0.txt')).toBe('run 0\n');

    const applied = await satchel.undo('ws', { session: 'run-1' }, { ifHead: preview.head });
    expect(applied.seq).toBe(preview.head + 1);
    expect(applied.summary.revert).toBe(97);
    expect(await text(satchel, '/out/f0.txt')).toBe('old 0\n');
    expect(await text(satchel, '/out/f7.txt')).toBe('theirs 7\n');
    const f1 = await satchel.stat('ws', '/out/f1.txt');
    expect(f1).toMatchObject({ seq: applied.seq, session: applied.session });
    const changed = await satchel.listChanges('ws', { after: preview.head });
    expect(new Set(changed.events.map((e) => e.seq))).toEqual(new Set([applied.seq]));
    expect(changed.events).toHaveLength(97);

    // The undo is a session of its own: undoing it brings the run's files back.
    const session = applied.session ?? '';
    expect(session).toMatch(/^undo:/);
    const again = await satchel.previewUndo('ws', { session });
    expect(again.summary).toMatchObject({ revert: 97, conflicts: 0 });
    await satchel.undo('ws', { session }, { ifHead: again.head });
    expect(await text(satchel, '/out/f0.txt')).toBe('run 0\n');
    expect(await text(satchel, '/out/f42.txt')).toBe('theirs 42\n');

    const audit = await satchel.listAudit({ limit: 1000 });
    expect(audit.items.filter((e) => e.action === 'undo').map((e) => e.seq)).toContain(applied.seq);
  });

  it('deletes what the session created, brings back what it deleted, and undoes moves', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/keep/a.txt', 'a');
    await satchel.writeFile('ws', '/keep/b.txt', 'b');
    await satchel.writeFile('ws', '/keep/c.txt', 'c');
    const run = { session: 'run-2' };
    await satchel.writeFile('ws', '/new/deep/x.txt', 'x', run);
    await satchel.remove('ws', '/keep/b.txt', run);
    await satchel.move('ws', '/keep/c.txt', '/moved/c.txt', run);

    const preview = await satchel.previewUndo('ws', { session: 'run-2' });
    const actions = Object.fromEntries(preview.changes.map((c) => [c.path, c.action]));
    expect(actions).toEqual({
      '/keep/b.txt': 'recreate',
      '/keep/c.txt': 'recreate',
      '/moved': 'delete',
      '/moved/c.txt': 'delete',
      '/new': 'delete',
      '/new/deep': 'delete',
      '/new/deep/x.txt': 'delete',
    });
    expect(preview.conflicts).toEqual([]);
    await satchel.undo('ws', { session: 'run-2' }, { ifHead: preview.head });
    const all = await satchel.list('ws', { recursive: true });
    expect(all.items.map((i) => i.path)).toEqual([
      '/keep',
      '/keep/a.txt',
      '/keep/b.txt',
      '/keep/c.txt',
    ]);
    expect(await text(satchel, '/keep/c.txt')).toBe('c');
  });

  it('undoes everything since a snapshot, or a principal since a seq', async () => {
    const { satchel, other } = await twoAgents();
    await satchel.writeFile('ws', '/a.txt', 'a1');
    const snap = await satchel.createSnapshot('ws', 'before');
    await satchel.writeFile('ws', '/a.txt', 'a2');
    await other.writeFile('ws', '/b.txt', 'b');

    const mine = await satchel.previewUndo('ws', { principal: 'admin', since: snap.seq });
    expect(mine.changes.map((c) => c.path)).toEqual(['/a.txt']);

    const all = await satchel.previewUndo('ws', { since: 'before' });
    expect(all).toMatchObject({ since: snap.seq, summary: { revert: 1, delete: 1 } });
    await satchel.undo('ws', { since: 'before' }, { ifHead: all.head });
    expect(await text(satchel, '/a.txt')).toBe('a1');
    expect(await exists(satchel, '/b.txt')).toBe(false);
  });

  it('force reverts the conflicts too; a directory that keeps others’ files stays', async () => {
    const { satchel, other } = await twoAgents();
    await satchel.writeFile('ws', '/d/mine.txt', 'mine', { session: 'run-3' });
    await satchel.writeFile('ws', '/x.txt', 'x', { session: 'run-3' });
    await other.writeFile('ws', '/x.txt', 'theirs');
    await other.writeFile('ws', '/d/theirs.txt', 'theirs');

    const preview = await satchel.previewUndo('ws', { session: 'run-3' });
    expect(preview.conflicts.map((c) => [c.path, c.reason])).toEqual([
      ['/d', 'not_empty'],
      ['/x.txt', 'changed_since'],
    ]);
    expect(preview.changes.map((c) => c.path)).toEqual(['/d/mine.txt']);

    const forced = await satchel.previewUndo('ws', { session: 'run-3' }, { force: true });
    expect(forced.changes.map((c) => [c.path, c.forced])).toEqual([
      ['/d/mine.txt', false],
      ['/x.txt', true],
    ]);
    await satchel.undo('ws', { session: 'run-3' }, { ifHead: forced.head, force: true });
    expect(await exists(satchel, '/x.txt')).toBe(false);
    expect(await text(satchel, '/d/theirs.txt')).toBe('theirs');
  });

  it('refuses an apply when a path it touches changed after the preview, and writes nothing', async () => {
    const { satchel, other } = await twoAgents();
    await satchel.writeFile('ws', '/a.txt', 'one', { session: 's' });
    const preview = await satchel.previewUndo('ws', { session: 's' });
    // A change elsewhere does not matter…
    await other.writeFile('ws', '/elsewhere.txt', 'z');
    // …a change to a path the undo touches does.
    await other.writeFile('ws', '/a.txt', 'two');
    await expect(
      satchel.undo('ws', { session: 's' }, { ifHead: preview.head }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { path: '/a.txt' } });
    expect(await text(satchel, '/a.txt')).toBe('two');

    await expect(
      satchel.undo('ws', { session: 's' }, { ifHead: preview.head + 100 }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { field: 'ifHead' } });
    await expect(satchel.previewUndo('ws', {})).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'target' },
    });
  });

  it('respects locks and the key’s path prefixes', async () => {
    const { satchel } = await openTemp();
    await satchel.createPrincipal({ name: 'narrow', kind: 'agent' });
    await satchel.setMember('ws', 'narrow', 'editor');
    const narrow = satchel.as(
      await satchel.authenticate(
        (await satchel.createKey({ principal: 'narrow', pathPrefixes: ['/out'] })).key,
      ),
    );
    await satchel.writeFile('ws', '/out/a.txt', 'a', { session: 's' });
    await satchel.writeFile('ws', '/cfg.txt', 'c', { session: 's' });
    const preview = await narrow.previewUndo('ws', { session: 's' });
    await expect(
      narrow.undo('ws', { session: 's' }, { ifHead: preview.head }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'path_prefix', path: '/cfg.txt' },
    });

    await narrow.acquireLock('ws', { path: '/out/a.txt' });
    await expect(
      satchel.undo('ws', { session: 's' }, { ifHead: preview.head }),
    ).rejects.toMatchObject({ code: 'LOCKED' });
    expect(await exists(satchel, '/cfg.txt')).toBe(true);
  });

  it('answers with seq null and writes nothing when there is nothing to undo', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'a');
    const head = (await satchel.getWorkspace('ws')).seq;
    const result = await satchel.undo('ws', { session: 'nobody' }, { ifHead: head });
    expect(result).toMatchObject({ seq: null, session: null, changes: [] });
    expect((await satchel.getWorkspace('ws')).seq).toBe(head);
  });
});
