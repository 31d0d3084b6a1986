/**
 * Agent runs in sandboxes that hibernate, resume and reset: the local provider on real
 * directories and processes (the codesandbox provider's runs: codesandbox.test.ts).
 */
import { readdir } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp, tempDir } from '../test-support/temp.js';
import { LocalSandboxProvider } from './local.js';
import { runInSandbox } from './run.js';

async function workspaceFiles(satchel: Awaited<ReturnType<typeof openTemp>>['satchel']) {
  const page = await satchel.list('ws', { recursive: true });
  return page.items.filter((i) => i.type === 'file').map((i) => i.path);
}

const sh = (script: string) => ['sh', '-c', script];

describe('local sandbox provider', () => {
  it('keeps files across hibernate, and restores everything after a reset without deleting anything', async () => {
    const { satchel } = await openTemp();
    const provider = new LocalSandboxProvider(await tempDir('sandboxes-'));
    const base = { provider, satchel, workspace: 'ws', sandbox: 'agent-1' };

    const first = await runInSandbox({
      ...base,
      command: sh('mkdir -p out && echo step1 > out/a.txt && echo notes > notes.md'),
    });
    expect(first).toMatchObject({ sandbox: 'agent-1', boot: 'new', exitCode: 0 });
    expect(first.save.uploaded).toBe(2);

    // Hibernated and resumed: the files are simply still there.
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const second = await runInSandbox({
      ...base,
      command: sh('cat out/a.txt && echo step2 >> out/a.txt'),
      stdout: out,
    });
    expect(second).toMatchObject({ boot: 'resumed', exitCode: 0 });
    expect(second.restore).toMatchObject({ reset: false, downloaded: 0, deletedRemote: 0 });
    expect(Buffer.concat(chunks).toString()).toBe('step1\n');
    expect((await catFile(satchel, '/out/a.txt')).toString()).toBe('step1\nstep2\n');

    // The snapshot is lost: the sandbox boots clean with an empty tree and no state.
    await provider.reset('agent-1');
    expect(await readdir(provider.dir('agent-1'))).toEqual([]);
    const third = await runInSandbox({ ...base, command: sh('cat out/a.txt notes.md > seen.txt') });
    expect(third.boot).toBe('clean');
    expect(third.restore).toMatchObject({ reset: true, downloaded: 2, deletedRemote: 0 });
    expect(third.save).toMatchObject({ uploaded: 1, deletedRemote: 0 });
    expect(await workspaceFiles(satchel)).toEqual(['/notes.md', '/out/a.txt', '/seen.txt']);
    expect((await catFile(satchel, '/seen.txt')).toString()).toBe('step1\nstep2\nnotes\n');
  });

  it('names a snapshot before the command, so the run can be read as before and undone', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/plan.md', 'v1\n');
    const provider = new LocalSandboxProvider(await tempDir('sandboxes-'));
    const result = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      snapshot: 'before-run-1',
      command: sh('echo v2 > plan.md && echo made > made.txt'),
    });
    expect(result.snapshot).toMatchObject({ name: 'before-run-1', message: expect.any(String) });
    expect(result.save.uploaded).toBe(2);
    const before = await satchel.readText('ws', '/plan.md', { at: 'before-run-1' });
    expect(before.text).toBe('v1\n');
    const preview = await satchel.previewUndo('ws', { since: 'before-run-1' });
    expect(preview.summary).toMatchObject({ revert: 1, delete: 1, conflicts: 0 });
    await satchel.undo('ws', { since: 'before-run-1' }, { ifHead: preview.head });
    expect(await workspaceFiles(satchel)).toEqual(['/plan.md']);
    expect((await catFile(satchel, '/plan.md')).toString()).toBe('v1\n');
  });

  it('syncs the results back and hibernates even when the command fails', async () => {
    const { satchel } = await openTemp();
    const provider = new LocalSandboxProvider(await tempDir('sandboxes-'));
    const result = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      sandbox: 'failing',
      command: sh('echo partial > half-done.txt; exit 3'),
    });
    expect(result.exitCode).toBe(3);
    expect(await workspaceFiles(satchel)).toEqual(['/half-done.txt']);
    const missing = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      sandbox: 'failing',
      command: ['/no/such/program'],
    });
    expect(missing.exitCode).toBe(127);
  });

  it('refuses sandbox ids that could leave its root', async () => {
    const provider = new LocalSandboxProvider(await tempDir('sandboxes-'));
    await expect(provider.resume('../etc')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(provider.create({ id: 'a/b' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
