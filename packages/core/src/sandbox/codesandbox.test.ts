/**
 * The codesandbox provider with the real @codesandbox/sdk against a wire-level stand-in
 * (test-support/codesandbox-wire.ts): the SandboxProvider contract, boot states and what they do
 * to files, commands that flood, wait for input, outlive their timeout or lose their sandbox,
 * and the SDK's errors as Satchel's.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeSandboxWire } from '../test-support/codesandbox-wire.js';
import { catFile, openTemp } from '../test-support/temp.js';
import { codeSandboxProvider } from './codesandbox.js';
import { runSandboxProviderContract } from './provider.contract.js';
import { runInSandbox } from './run.js';

const wireRoot = await mkdtemp(join(tmpdir(), 'satchel-csb-'));
const wire = await new CodeSandboxWire(wireRoot, { apiKey: 'csb_test', ansi: true }).start();
await wire.template('tpl', {});
await wire.template('starter', {
  'README.md': 'template readme\n',
  '.codesandbox/tasks.json': '{}\n',
  '.satchel-sync/state.json': '{"format":1,"workspace":"other","cursor":9,"files":{}}\n',
});
const provider = await codeSandboxProvider('csb_test', { baseUrl: wire.baseUrl, template: 'tpl' });

afterAll(async () => {
  await wire.close();
  await rm(wireRoot, { recursive: true, force: true });
});

runSandboxProviderContract('codesandbox (real SDK, wire stand-in)', async () => ({
  provider,
  cleanup: async () => undefined,
}));

function capture() {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  return { out, text: () => Buffer.concat(chunks).toString('utf8') };
}

async function workspaceFiles(satchel: Awaited<ReturnType<typeof openTemp>>['satchel']) {
  const page = await satchel.list('ws', { recursive: true, limit: 1000 });
  return page.items.filter((i) => i.type === 'file').map((i) => i.path);
}

describe('codesandbox boot states and files', () => {
  it('keeps a template’s files out of the workspace and drops the sync state it inherited', async () => {
    const { satchel } = await openTemp();
    const run = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      template: 'starter',
      command: ['sh', '-c', 'echo work > result.txt'],
    });
    expect(run).toMatchObject({ boot: 'new', exitCode: 0, save: { uploaded: 1 } });
    expect(await workspaceFiles(satchel)).toEqual(['/result.txt']);
    expect(await readFile(wire.treePath(run.sandbox, 'README.md'), 'utf8')).toBe(
      'template readme\n',
    );
    // Later runs still leave the template's files alone.
    const again = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      sandbox: run.sandbox,
      command: ['true'],
    });
    expect(again).toMatchObject({ boot: 'resumed', save: { uploaded: 0, deletedRemote: 0 } });
    expect(await workspaceFiles(satchel)).toEqual(['/result.txt']);
  });

  it('saves a template file once the agent changes it, and still leaves the untouched ones out', async () => {
    const { satchel } = await openTemp();
    const run = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      template: 'starter',
      command: ['sh', '-c', 'echo "agent readme" > README.md'],
    });
    expect(run).toMatchObject({ boot: 'new', exitCode: 0, save: { uploaded: 1 } });
    expect(await workspaceFiles(satchel)).toEqual(['/README.md']);
    expect(await satchel.readText('ws', '/README.md')).toMatchObject({ text: 'agent readme\n' });
    // The next run restores nothing over it and saves the next change too.
    const again = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      sandbox: run.sandbox,
      command: ['sh', '-c', 'echo "second edit" >> README.md'],
    });
    expect(again).toMatchObject({ boot: 'resumed', save: { uploaded: 1, deletedRemote: 0 } });
    expect(await workspaceFiles(satchel)).toEqual(['/README.md']);
  });

  it('after an archive (200 files, 30 gitignored gone, every mtime new) deletes nothing and restores the 30', async () => {
    const { satchel } = await openTemp();
    const script = [
      'printf "secret.env\\nbuild/\\n" > .gitignore',
      'mkdir -p src build',
      'for i in $(seq 1 169); do echo "s$i" > src/f$i.txt; done',
      'for i in $(seq 1 29); do echo "b$i" > build/o$i.js; done',
      'echo KEY=1 > secret.env',
    ].join(' && ');
    const first = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      command: ['sh', '-c', script],
    });
    expect(first.save.uploaded).toBe(200);
    wire.archive(first.sandbox);
    const back = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      sandbox: first.sandbox,
      command: ['sh', '-c', 'ls build | wc -l'],
    });
    expect(back.boot).toBe('clean');
    expect(back.restore).toMatchObject({ deletedRemote: 0, downloaded: 30 });
    expect(back.restore.notices.map((n) => n.reason)).toEqual(['restore_detected']);
    expect(back.save).toMatchObject({ deletedRemote: 0 });
    expect(await workspaceFiles(satchel)).toHaveLength(200);
    expect(await readdir(wire.treePath(first.sandbox, 'build'))).toHaveLength(29);
    expect((await catFile(satchel, '/secret.env')).toString()).toBe('KEY=1\n');
  });
});

describe('codesandbox commands', () => {
  it('streams 5 MB of PTY output as plain text and finishes', async () => {
    const handle = await provider.create();
    const { out, text } = capture();
    const result = await handle.exec(
      ['sh', '-c', 'head -c 5000000 /dev/zero | tr "\\0" "x" | fold -w 99; echo; echo done >&2'],
      { stdout: out },
    );
    expect(result.exitCode).toBe(0);
    const output = text();
    expect(output.includes('\r') || output.includes('\u001b')).toBe(false);
    expect(output.replace(/\n/g, '').length).toBe(5_000_000 + 'done'.length);
    await provider.hibernate(handle.id);
  });

  it('gives a command waiting for input end-of-file, and stops one that outlives its timeout', async () => {
    const handle = await provider.create();
    const { out, text } = capture();
    const read = await handle.exec(['sh', '-c', 'read answer; echo "got [$answer] $?"'], {
      stdout: out,
    });
    expect(read.exitCode).toBe(0);
    expect(text()).toBe('got [] 1\n');
    const env = capture();
    await handle.exec(['sh', '-c', 'echo "$CI $TERM $PAGER"'], { stdout: env.out });
    expect(env.text()).toBe('1 dumb cat\n');
    const slow = await handle.exec(['sleep', '30'], { timeoutMs: 300 });
    expect(slow.exitCode).toBe(124);
    await provider.hibernate(handle.id);
  });

  it('reports a sandbox that hibernates mid-command instead of hanging', async () => {
    const handle = await provider.create();
    const running = handle.exec(['sleep', '30']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    wire.hibernateNow(handle.id);
    await expect(running).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('hibernated while the command was running'),
    });
  });
});

describe('codesandbox errors', () => {
  it('says which: unknown sandbox, rate limit, refused key', async () => {
    await expect(provider.resume('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    wire.inject('start', { kind: 'status', status: 429 });
    wire.inject('start', { kind: 'status', status: 429 });
    wire.inject('start', { kind: 'status', status: 429 });
    await expect(provider.create()).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('0 of 100 requests remaining'),
    });
    const wrongKey = await codeSandboxProvider('csb_wrong', { baseUrl: wire.baseUrl });
    await expect(wrongKey.resume('tpl')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      data: { reason: 'provider_auth' },
      message: expect.stringContaining('CSB_API_KEY'),
    });
  });
});
