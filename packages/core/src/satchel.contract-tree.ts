/** The batch, tree and history part of the Satchel contract (run from satchel.contract.ts). */
import { expect, it } from 'vitest';
import { bytesOf, sha256, type World } from './satchel.contract.js';

export function treeBehaviour(w: () => World): void {
  it('writes batches atomically, text and bytes, fenced by locks', async () => {
    const { admin, editor, viewer } = w();
    const ws = await w().workspace('batch');
    const bytes = new Uint8Array([0, 1, 2, 255, 10]);
    const infos = await admin.writeFiles(
      ws,
      [
        { path: '/1.txt', content: 'a' },
        { path: 'dir/2.bin', content: bytes },
        { path: '/é ü.txt', content: 'ünï', ifNoneMatch: '*' },
      ],
      { session: 'batch-run' },
    );
    expect(infos.map((i) => [i.path, i.size, i.session])).toEqual([
      ['/1.txt', 1, 'batch-run'],
      ['/dir/2.bin', 5, 'batch-run'],
      ['/é ü.txt', Buffer.byteLength('ünï'), 'batch-run'],
    ]);
    expect(infos[1]?.hash).toBe(sha256(bytes));
    expect(await bytesOf((await admin.readFile(ws, '/dir/2.bin')).body)).toEqual(
      Buffer.from(bytes),
    );
    expect(await admin.stat(ws, '/é ü.txt')).toEqual(infos[2]);

    // All or nothing: one failed condition and nothing of the batch is written.
    await expect(
      admin.writeFiles(ws, [
        { path: '/3.txt', content: 'c' },
        { path: '/1.txt', content: 'b', ifNoneMatch: '*' },
      ]),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { path: '/1.txt' } });
    await expect(admin.stat(ws, '/3.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const one = infos[0]?.seq ?? 0;
    await expect(
      admin.writeFiles(ws, [{ path: '/1.txt', content: 'b', ifMatch: one + 99 }]),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { expected: one + 99 } });
    await expect(admin.writeFiles(ws, [])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'files' },
    });
    await expect(
      admin.writeFiles(ws, [
        { path: '/4.txt', content: 'x' },
        { path: '/4.txt', content: 'y' },
      ]),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: '/4.txt appears twice in the batch',
    });
    await expect(viewer.writeFiles(ws, [{ path: '/v.txt', content: 'v' }])).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });

    const lock = await admin.acquireLock(ws, { path: '/1.txt' });
    await expect(editor.writeFiles(ws, [{ path: '/1.txt', content: 'e' }])).rejects.toMatchObject({
      code: 'LOCKED',
      data: { holder: 'admin' },
    });
    const fenced = await admin.writeFiles(ws, [{ path: '/1.txt', content: 'f' }], {
      lockToken: lock.token,
    });
    expect(fenced[0]).toMatchObject({ path: '/1.txt', size: 1 });
    await admin.releaseLock(ws, lock.id);
  });

  it('lists directories, subtrees and globs, in pages with a total', async () => {
    const { admin } = w();
    const ws = await w().workspace('listing');
    for (let i = 0; i < 25; i++) {
      await admin.writeFile(ws, `/p/f${String(i).padStart(2, '0')}.txt`, `${i}`);
    }
    await admin.writeFile(ws, '/p/sub/x.md', '# x');
    const first = await admin.list(ws, { path: '/p', limit: 10 });
    expect(first.total).toBe(26);
    expect(first.items).toHaveLength(10);
    const seen = first.items.map((i) => i.path);
    for (let cursor = first.nextCursor; cursor !== null; ) {
      const page = await admin.list(ws, { path: '/p', limit: 10, cursor });
      seen.push(...page.items.map((i) => i.path));
      cursor = page.nextCursor;
    }
    expect(seen).toHaveLength(26);
    expect(seen).toContain('/p/sub');
    expect(new Set(seen).size).toBe(26);

    const recursive = await admin.list(ws, { recursive: true, limit: 1000 });
    expect(recursive.total).toBe(28);
    const md = await admin.list(ws, { glob: '**/*.md' });
    expect(md.items.map((i) => i.path)).toEqual(['/p/sub/x.md']);
    const one = await admin.list(ws, { path: '/p/f01.txt' });
    expect(one).toMatchObject({ total: 1, items: [{ path: '/p/f01.txt', type: 'file' }] });
    await expect(admin.list(ws, { path: '/nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'directory /nope not found',
    });
    await expect(admin.list(ws, { limit: 5000 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('makes directories, moves, copies, edits and removes', async () => {
    const { admin } = w();
    const ws = await w().workspace('tree');
    expect(await admin.mkdir(ws, '/d')).toMatchObject({ path: '/d', type: 'directory' });
    const a = await admin.writeFile(ws, '/d/a.txt', 'alpha beta\n');
    const copy = await admin.copy(ws, '/d/a.txt', '/d/b.txt');
    expect(copy).toMatchObject({ path: '/d/b.txt', hash: a.hash });
    await expect(admin.copy(ws, '/d/a.txt', '/d/b.txt')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await admin.copy(ws, '/d/a.txt', '/d/b.txt', { overwrite: true })).toMatchObject({
      path: '/d/b.txt',
    });
    const moved = await admin.move(ws, '/d/a.txt', '/e/a.txt');
    expect(moved).toMatchObject({ path: '/e/a.txt', hash: a.hash });
    await expect(admin.stat(ws, '/d/a.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const dry = await admin.editFile(ws, '/e/a.txt', [{ oldText: 'beta', newText: 'gamma' }], {
      dryRun: true,
    });
    expect(dry).toMatchObject({ dryRun: true, replacements: 1, info: { seq: moved.seq } });
    expect(dry.diff).toContain('+alpha gamma');
    const edited = await admin.editFile(ws, '/e/a.txt', [{ oldText: 'beta', newText: 'gamma' }]);
    expect(edited.info.seq).toBeGreaterThan(moved.seq);
    expect((await admin.readText(ws, '/e/a.txt')).text).toBe('alpha gamma\n');
    await expect(
      admin.editFile(ws, '/e/a.txt', [{ oldText: 'zeta', newText: 'eta' }]),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });

    await expect(admin.remove(ws, '/d')).rejects.toMatchObject({
      code: 'CONFLICT',
      data: { reason: 'not_empty' },
    });
    expect(await admin.remove(ws, '/d', { recursive: true })).toMatchObject({ removed: 2 });
    expect(await admin.remove(ws, '/e/a.txt')).toMatchObject({ removed: 1 });
    await expect(admin.remove(ws, '/e/a.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists versions, diffs them and restores an old one', async () => {
    const { admin } = w();
    const ws = await w().workspace('history');
    const v1 = await admin.writeFile(ws, '/h.txt', 'a\n');
    const v2 = await admin.writeFile(ws, '/h.txt', 'b\n', { message: 'second' });
    const versions = await admin.listVersions(ws, '/h.txt');
    expect(versions.items.map((v) => [v.seq, v.op, v.message])).toEqual([
      [v2.seq, 'write', 'second'],
      [v1.seq, 'write', null],
    ]);
    const page = await admin.listVersions(ws, '/h.txt', { limit: 1 });
    expect(page.items).toHaveLength(1);
    expect(page.nextCursor).not.toBeNull();

    const diff = await admin.diff(ws, '/h.txt');
    expect(diff).toMatchObject({ path: '/h.txt', from: v1.seq, to: v2.seq, binary: false });
    expect(diff.diff).toContain('-a');
    expect(diff.diff).toContain('+b');
    expect((await admin.diff(ws, '/h.txt', { from: v2.seq, to: v1.seq })).diff).toContain('+a');

    const old = await admin.readFile(ws, '/h.txt', { version: v1.seq });
    expect((await bytesOf(old.body)).toString()).toBe('a\n');
    expect(old.info.seq).toBe(v1.seq);
    const restored = await admin.restore(ws, '/h.txt', v1.seq);
    expect(restored.seq).toBeGreaterThan(v2.seq);
    expect((await admin.readText(ws, '/h.txt')).text).toBe('a\n');

    await admin.remove(ws, '/h.txt');
    await admin.restore(ws, '/h.txt', v2.seq);
    expect((await admin.readText(ws, '/h.txt')).text).toBe('b\n');
    await expect(admin.restore(ws, '/h.txt', 9999)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const head = await admin.stat(ws, '/h.txt');
    await expect(admin.restore(ws, '/h.txt', v1.seq, { ifNoneMatch: '*' })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      data: { expected: '*' },
    });
    await expect(
      admin.restore(ws, '/h.txt', v1.seq, { ifMatch: head.seq + 50 }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { actual: head.seq } });
    const again = await admin.restore(ws, '/h.txt', v1.seq, {
      ifMatch: head.seq,
      message: 'back to a',
      session: 'undo',
    });
    expect(again).toMatchObject({ session: 'undo' });
    expect((await admin.listVersions(ws, '/h.txt', { limit: 1 })).items[0]).toMatchObject({
      seq: again.seq,
      message: 'back to a',
      session: 'undo',
    });
    await admin.remove(ws, '/h.txt');
    expect(await admin.restore(ws, '/h.txt', v1.seq, { ifNoneMatch: '*' })).toMatchObject({
      path: '/h.txt',
    });
    await expect(admin.readFile(ws, '/h.txt', { version: 9999 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('names states with snapshots and reads the workspace as it was (at)', async () => {
    const { admin, editor, viewer } = w();
    const ws = await w().workspace('past');
    await admin.writeFile(ws, '/d/a.txt', 'one\n');
    const snap = await editor.createSnapshot(ws, 'before', { message: 'clean' });
    expect(snap).toMatchObject({ name: 'before', createdBy: 'ed', message: 'clean' });
    await admin.writeFile(ws, '/d/a.txt', 'two\n');
    await admin.writeFile(ws, '/d/b.txt', 'new\n');

    expect((await viewer.readText(ws, '/d/a.txt', { at: 'before' })).text).toBe('one\n');
    expect(await bytesOf((await viewer.readFile(ws, '/d/a.txt', { at: snap.seq })).body)).toEqual(
      Buffer.from('one\n'),
    );
    expect((await viewer.stat(ws, '/d/a.txt', { at: 'before' })).size).toBe(4);
    const then = await viewer.list(ws, { path: '/d', at: 'before' });
    expect([then.items.map((i) => i.path), then.total]).toEqual([['/d/a.txt'], 1]);
    await expect(viewer.stat(ws, '/d/b.txt', { at: 'before' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(viewer.readFile(ws, '/d/a.txt', { at: 'later' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      data: { snapshot: 'later' },
    });
    await expect(viewer.list(ws, { at: snap.seq + 100 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'at' },
    });

    // Viewers see snapshots but do not make or remove them.
    expect((await viewer.listSnapshots(ws)).items.map((s) => s.name)).toEqual(['before']);
    await expect(viewer.createSnapshot(ws, 'mine')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(editor.createSnapshot(ws, 'before')).rejects.toMatchObject({
      code: 'CONFLICT',
      data: { reason: 'snapshot_exists' },
    });
    await expect(admin.createSnapshot(ws, '12')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'name' },
    });
    await editor.deleteSnapshot(ws, 'before');
    await expect(editor.deleteSnapshot(ws, 'before')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await viewer.listSnapshots(ws)).items).toEqual([]);
  });

  it('redacts a version for owners only: its reads are REDACTED, its metadata stays', async () => {
    const { admin, editor, viewer } = w();
    const ws = await w().workspace('redact');
    const leaked = await editor.writeFile(ws, '/.env', 'TOKEN=secret\n');
    await editor.writeFile(ws, '/.env', 'TOKEN=\n');
    await expect(editor.redact(ws, '/.env', { version: leaked.seq })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(await admin.redact(ws, '/.env', { version: leaked.seq })).toEqual({
      path: '/.env',
      seqs: [leaked.seq],
    });
    await expect(viewer.readFile(ws, '/.env', { version: leaked.seq })).rejects.toMatchObject({
      code: 'REDACTED',
      data: { path: '/.env', seq: leaked.seq },
    });
    await expect(viewer.stat(ws, '/.env', { at: leaked.seq })).resolves.toMatchObject({
      hash: null,
      size: leaked.size,
    });
    expect((await viewer.readText(ws, '/.env')).text).toBe('TOKEN=\n');
    await expect(admin.redact(ws, '/.env', {})).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('previews and applies an undo of a session in one seq, leaving what others changed since', async () => {
    const { admin, editor, viewer } = w();
    const ws = await w().workspace('undo');
    await admin.writeFiles(ws, [
      { path: '/d/a.txt', content: 'a1\n' },
      { path: '/d/b.txt', content: 'b1\n' },
    ]);
    const run = { session: 'run-9' };
    await editor.writeFile(ws, '/d/a.txt', 'a2\n', run);
    await editor.writeFile(ws, '/d/b.txt', 'b2\n', run);
    await editor.writeFile(ws, '/d/new.txt', 'new\n', run);
    await editor.remove(ws, '/d/b.txt', run);
    await admin.writeFile(ws, '/d/a.txt', 'a3\n');

    // Viewers may look; the preview names the conflict and diffs the rest.
    const preview = await viewer.previewUndo(ws, { session: 'run-9' });
    expect(preview.summary).toMatchObject({ revert: 0, delete: 1, recreate: 1, conflicts: 1 });
    expect(preview.changes.map((c) => [c.path, c.action])).toEqual([
      ['/d/b.txt', 'recreate'],
      ['/d/new.txt', 'delete'],
    ]);
    expect(preview.changes[0]?.diff).toContain('+b1');
    expect(preview.conflicts).toEqual([
      expect.objectContaining({
        path: '/d/a.txt',
        reason: 'changed_since',
        ours: expect.objectContaining({ author: 'ed', session: 'run-9' }),
        theirs: expect.objectContaining({ session: null, deleted: false }),
      }),
    ]);
    await expect(
      viewer.undo(ws, { session: 'run-9' }, { ifHead: preview.head }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });

    const done = await editor.undo(ws, { session: 'run-9' }, { ifHead: preview.head });
    expect(done).toMatchObject({ seq: preview.head + 1, session: `undo:${preview.head + 1}` });
    expect((await viewer.readText(ws, '/d/b.txt')).text).toBe('b1\n');
    expect((await viewer.readText(ws, '/d/a.txt')).text).toBe('a3\n');
    await expect(viewer.stat(ws, '/d/new.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });

    // The preview it was approved on no longer holds: refused, nothing written.
    const back = await editor.previewUndo(ws, { session: done.session ?? '' });
    await admin.writeFile(ws, '/d/b.txt', 'b4\n');
    await expect(
      editor.undo(ws, { session: done.session ?? '' }, { ifHead: back.head }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { path: '/d/b.txt' } });
    await expect(editor.previewUndo(ws, { since: 'no-such-snapshot' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
}
