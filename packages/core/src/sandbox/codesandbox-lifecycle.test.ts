/**
 * The codesandbox provider's readiness and command lifecycle on the real SDK against the
 * wire-level stand-in: a connect that never completes, setup tasks after a fork, output
 * streamed while a command runs, a sandbox kept awake through a long command, a failing
 * hibernate or an overloaded API.
 */
import { writeFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeSandboxWire, type WireOptions } from '../test-support/codesandbox-wire.js';
import { openTemp, tempDir } from '../test-support/temp.js';
import { type CodeSandboxOptions, codeSandboxProvider } from './codesandbox.js';
import { runInSandbox } from './run.js';

const wires: CodeSandboxWire[] = [];

afterEach(async () => {
  while (wires.length > 0) await wires.pop()?.close();
});

async function setUp(options: WireOptions = {}, provider: CodeSandboxOptions = {}) {
  const wire = await new CodeSandboxWire(await tempDir('satchel-csb-'), options).start();
  wires.push(wire);
  await wire.template('tpl', { 'README.md': 'template\n' });
  return {
    wire,
    provider: await codeSandboxProvider('csb_test', {
      baseUrl: wire.baseUrl,
      template: 'tpl',
      ...provider,
    }),
  };
}

describe('codesandbox readiness', () => {
  it('gives up on a connection that never completes, with UNAVAILABLE', async () => {
    const { wire, provider } = await setUp({}, { connectTimeoutMs: 500 });
    wire.inject('client/join', { kind: 'hang' });
    await expect(provider.create()).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('took longer than 500 ms'),
    });
  });

  it('waits for the setup tasks of a fresh fork; what they write is the template’s, not the agent’s work', async () => {
    const { wire, provider } = await setUp({ setupMs: 300, setupFile: 'installed.txt' });
    const { satchel } = await openTemp();
    const run = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      command: ['sh', '-c', 'cat installed.txt > seen.txt'],
    });
    expect(run).toMatchObject({ boot: 'new', exitCode: 0, save: { uploaded: 1 } });
    const files = await satchel.list('ws', { recursive: true });
    expect(files.items.map((i) => i.path)).toEqual(['/seen.txt']);
    expect(wire.calls).toContain(`start ${run.sandbox}`);
  });

  it('an overloaded API (503) is UNAVAILABLE', async () => {
    const { wire, provider } = await setUp();
    for (let i = 0; i < 5; i++) wire.inject('start', { kind: 'status', status: 503 });
    await expect(provider.create()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe('codesandbox commands over time', () => {
  it('streams output while the command runs', async () => {
    const { wire, provider } = await setUp();
    const handle = await provider.create();
    const out = new PassThrough();
    let text = '';
    // The command waits for a file the test writes only once it has seen "ready".
    out.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text === 'ready\n') void writeFile(wire.treePath(handle.id, 'go'), '');
    });
    const result = await handle.exec(
      ['sh', '-c', 'echo ready; while [ ! -e go ]; do sleep 0.05; done; echo after'],
      { stdout: out, timeoutMs: 20_000 },
    );
    expect(result.exitCode).toBe(0);
    expect(text).toBe('ready\nafter\n');
  });

  it('keeps the sandbox awake through a command longer than its idle timeout', async () => {
    // The SDK's keep-alive comes every 10 s; the sandbox hibernates after 12.5 s without one.
    const { provider } = await setUp({ idleHibernateMs: 12_500 });
    const handle = await provider.create();
    const result = await handle.exec(['sleep', '15']);
    expect(result.exitCode).toBe(0);
  }, 40_000);

  it('a failing hibernate does not hide the command’s result', async () => {
    const { wire, provider } = await setUp();
    const { satchel } = await openTemp();
    for (let i = 0; i < 5; i++) wire.inject('hibernate', { kind: 'status', status: 503 });
    const run = await runInSandbox({
      provider,
      satchel,
      workspace: 'ws',
      command: ['sh', '-c', 'echo done > out.txt; exit 3'],
    });
    expect(run).toMatchObject({ exitCode: 3, save: { uploaded: 1 } });
    expect(run.hibernateError).toContain('overloaded');
  });
});
