import { describe, expect, it } from 'vitest';
import { divergeAndMerge, paths, sharesContent, text } from '../test-support/fork-scenarios.js';
import { openTemp } from '../test-support/temp.js';

describe('fork', () => {
  it('fork → diverge both sides → merge: clean paths merged, conflicts kept beside, nothing lost, one seq', async () => {
    const { satchel } = await openTemp();
    await divergeAndMerge(satchel);
  });

  it('shares content with its source: no new blob files, and GC after deleting the source keeps it', async () => {
    const { satchel, data } = await openTemp();
    await sharesContent(satchel, data);
  });

  it('forks at a snapshot: the files as they were, seqs continuing from there, no history before', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'one\n');
    await satchel.writeFile('ws', '/b.txt', 'b\n');
    const snap = await satchel.createSnapshot('ws', 'before-run');
    await satchel.writeFile('ws', '/a.txt', 'two\n');
    await satchel.remove('ws', '/b.txt');
    await satchel.writeFile('ws', '/c.txt', 'c\n');

    const fork = await satchel.forkWorkspace('ws', 'retry', { at: 'before-run' });
    expect(fork).toMatchObject({ at: snap.seq, seq: snap.seq, files: 2 });
    expect(await paths(satchel, 'retry')).toEqual(['/a.txt', '/b.txt']);
    expect(await text(satchel, 'retry', '/a.txt')).toBe('one\n');
    // The same version as in the source: its seq is the file's ETag on both sides.
    const [inFork, inSource] = await Promise.all([
      satchel.stat('retry', '/b.txt'),
      satchel.stat('ws', '/b.txt', { at: snap.seq }),
    ]);
    expect(inFork.seq).toBe(inSource.seq);
    const written = await satchel.writeFile('retry', '/a.txt', 'retry\n');
    expect(written.seq).toBe(snap.seq + 1);
    await expect(satchel.stat('retry', '/a.txt', { at: 1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'at', forkedAt: snap.seq, source: 'ws' },
    });
    expect(await text(satchel, 'ws', '/a.txt')).toBe('two\n');
  });

  it('refuses a taken name, an unknown snapshot and a seq past the head, writing nothing', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'a\n');
    await satchel.createWorkspace('other');
    await expect(satchel.forkWorkspace('ws', 'other')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(satchel.forkWorkspace('ws', 'f', { at: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(satchel.forkWorkspace('ws', 'f', { at: 99 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(satchel.getWorkspace('f')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('merge', () => {
  it('refuses an apply whose preview no longer holds, and workspaces with no fork base', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'a\n');
    await satchel.forkWorkspace('ws', 'exp');
    await satchel.writeFile('exp', '/a.txt', 'theirs\n');
    const preview = await satchel.previewMerge('ws', 'exp');
    await satchel.writeFile('exp', '/b.txt', 'later\n');
    await expect(
      satchel.merge('ws', 'exp', { ifHead: preview.head, ifFromHead: preview.fromHead }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await satchel.writeFile('ws', '/a.txt', 'ours\n');
    const again = await satchel.previewMerge('ws', 'exp');
    expect(again.summary.conflicts).toBe(1);
    await satchel.writeFile('ws', '/a.txt', 'ours 2\n');
    await expect(
      satchel.merge('ws', 'exp', { ifHead: again.head, ifFromHead: again.fromHead }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { path: '/a.txt' } });
    expect(await text(satchel, 'ws', '/a.txt')).toBe('ours 2\n');

    await satchel.createWorkspace('stranger');
    await expect(satchel.previewMerge('ws', 'stranger')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'no_fork_base' },
    });
  });

  it("brings the source's changes into the fork, and the merge is undone as its session", async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'a\n');
    await satchel.forkWorkspace('ws', 'exp');
    await satchel.writeFile('ws', '/a.txt', 'source\n');
    await satchel.writeFile('exp', '/mine.txt', 'mine\n');
    const preview = await satchel.previewMerge('exp', 'ws');
    expect(preview.changes.map((c) => [c.path, c.action])).toEqual([['/a.txt', 'modify']]);
    const result = await satchel.merge('exp', 'ws', {
      ifHead: preview.head,
      ifFromHead: preview.fromHead,
    });
    expect(await text(satchel, 'exp', '/a.txt')).toBe('source\n');
    const undo = await satchel.previewUndo('exp', { session: result.session ?? '' });
    await satchel.undo('exp', { session: result.session ?? '' }, { ifHead: undo.head });
    expect(await text(satchel, 'exp', '/a.txt')).toBe('a\n');
    expect(await text(satchel, 'exp', '/mine.txt')).toBe('mine\n');
  });

  it('needs read on the source to fork (the fork is yours), write on the target and read on the fork to merge', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'a\n');
    await satchel.createPrincipal({ name: 'viewer', kind: 'agent' });
    await satchel.setMember('ws', 'viewer', 'viewer');
    const viewer = satchel.as(
      await satchel.authenticate((await satchel.createKey({ principal: 'viewer' })).key),
    );
    await viewer.forkWorkspace('ws', 'mine');
    const members = await viewer.listMembers('mine');
    expect(members.map((m) => [m.principal, m.role])).toEqual([['viewer', 'owner']]);
    await viewer.writeFile('mine', '/a.txt', 'changed\n');
    const preview = await viewer.previewMerge('ws', 'mine');
    await expect(
      viewer.merge('ws', 'mine', { ifHead: preview.head, ifFromHead: preview.fromHead }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // An editor of ws who may not see the fork: NOT_FOUND, as for any workspace it may not see.
    await satchel.createPrincipal({ name: 'editor', kind: 'agent' });
    await satchel.setMember('ws', 'editor', 'editor');
    const editor = satchel.as(
      await satchel.authenticate((await satchel.createKey({ principal: 'editor' })).key),
    );
    await expect(editor.previewMerge('ws', 'mine')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await text(satchel, 'ws', '/a.txt')).toBe('a\n');
    const actions = (await satchel.listAudit({ workspace: 'ws' })).items.map(
      (e) => `${e.action}:${e.outcome}`,
    );
    expect(actions).toContain('forkWorkspace:ok');
    expect(actions).toContain('merge:refused');
  });

  it('keeps theirs under the name its preview showed, however long the caller took to approve', async () => {
    let now = Date.UTC(2026, 11, 3, 10, 15, 0);
    const { satchel } = await openTemp({ clock: () => now });
    await satchel.writeFile('ws', '/notes.md', 'base\n');
    await satchel.forkWorkspace('ws', 'exp');
    await satchel.writeFile('exp', '/notes.md', 'theirs\n');
    now += 90_000;
    await satchel.writeFile('ws', '/notes.md', 'ours\n');
    const preview = await satchel.previewMerge('ws', 'exp');
    expect(preview.conflicts[0]?.keptAs).toBe('/notes.conflict-exp-20261203T101500Z.md');
    now += 3_600_000;
    const merged = await satchel.merge('ws', 'exp', {
      ifHead: preview.head,
      ifFromHead: preview.fromHead,
    });
    expect(merged.conflicts[0]?.keptAs).toBe(preview.conflicts[0]?.keptAs);
    expect(await text(satchel, 'ws', '/notes.conflict-exp-20261203T101500Z.md')).toBe('theirs\n');
  });
});
