/**
 * The SandboxProvider contract: what every provider (local directories, CodeSandbox) must do,
 * as provider.ts documents it and as runInSandbox relies on it — create, hibernate and resume
 * with files kept, exec with exit codes and output in the working tree, NOT_FOUND for unknown
 * sandboxes, and reset where a provider offers it. Each implementation runs it with its own
 * factory.
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxHandle, SandboxProvider } from './provider.js';

export interface SandboxProviderFixture {
  /** A provider with no sandboxes yet. */
  readonly provider: SandboxProvider;
  cleanup(): Promise<void>;
}

/** An id no provider has handed out (and a valid local id, so it fails as unknown, not invalid). */
const UNKNOWN = 'no-such-sandbox';

async function* once(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

async function textOf(handle: SandboxHandle, path: string): Promise<string> {
  const pieces: Buffer[] = [];
  for await (const piece of handle.tree.read(path)) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces).toString('utf8');
}

/** Runs `script` under sh in the sandbox; its exit code and what it wrote to stdout. */
async function sh(
  handle: SandboxHandle,
  script: string,
  env?: Record<string, string>,
): Promise<{ exitCode: number; stdout: string }> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const { exitCode } = await handle.exec(['sh', '-c', script], {
    stdout: out,
    ...(env === undefined ? {} : { env }),
  });
  return { exitCode, stdout: Buffer.concat(chunks).toString('utf8') };
}

export function runSandboxProviderContract(
  name: string,
  factory: () => Promise<SandboxProviderFixture>,
): void {
  describe(`SandboxProvider contract: ${name}`, () => {
    let fixture: SandboxProviderFixture;
    let provider: SandboxProvider;

    beforeEach(async () => {
      fixture = await factory();
      provider = fixture.provider;
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    it('creates new sandboxes, each with its own existing working tree', async () => {
      const first = await provider.create();
      const second = await provider.create();
      expect(first.boot).toBe('new');
      expect(first.id).not.toBe(second.id);
      expect(await first.tree.exists()).toBe(true);
      await first.tree.write('only-in-first.txt', once('1'));
      expect(await second.tree.stat('only-in-first.txt')).toBeNull();
      expect(provider.name).not.toBe('');
    });

    it('runs commands in the working tree: exit codes, output, environment', async () => {
      const handle = await provider.create();
      await handle.tree.write('given.txt', once('from the tree\n'));
      expect(await sh(handle, 'cat given.txt')).toEqual({
        exitCode: 0,
        stdout: 'from the tree\n',
      });
      expect(await sh(handle, 'echo "$GREETING"', { GREETING: 'hi there' })).toEqual({
        exitCode: 0,
        stdout: 'hi there\n',
      });
      expect(await sh(handle, 'echo partial; exit 3')).toEqual({
        exitCode: 3,
        stdout: 'partial\n',
      });
      expect((await handle.exec(['/no/such/program'])).exitCode).toBe(127);
      // Output is discarded when no stream is given.
      expect(await handle.exec(['sh', '-c', 'echo made > made.txt'])).toEqual({ exitCode: 0 });
      expect(await handle.tree.stat('made.txt')).toMatchObject({ type: 'file', size: 5 });
      // Arguments travel as they are, not through a shell's word splitting.
      expect(await sh(handle, 'printf "%s|\\n" "$0"')).toMatchObject({ stdout: 'sh|\n' });
      await handle.exec(['sh', '-c', 'printf "%s" "$1" > arg.txt', 'sh', 'two words; $HOME']);
      expect(await textOf(handle, 'arg.txt')).toBe('two words; $HOME');
    });

    it('refuses an empty command with INVALID_INPUT, as a rejected promise', async () => {
      const handle = await provider.create();
      await expect(handle.exec([])).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        data: { field: 'command' },
      });
    });

    it('keeps files across hibernate and resume', async () => {
      const created = await provider.create();
      await sh(created, 'mkdir -p out && echo step1 > out/a.txt');
      await created.tree.write('notes.md', once('notes\n'));
      await provider.hibernate(created.id);

      const resumed = await provider.resume(created.id);
      expect(resumed).toMatchObject({ id: created.id, boot: 'resumed' });
      expect(await textOf(resumed, 'out/a.txt')).toBe('step1\n');
      expect(await sh(resumed, 'cat notes.md && echo step2 >> out/a.txt')).toEqual({
        exitCode: 0,
        stdout: 'notes\n',
      });
      await provider.hibernate(resumed.id);
      const again = await provider.resume(created.id);
      expect(await textOf(again, 'out/a.txt')).toBe('step1\nstep2\n');
    });

    it('keeps files across shutdown, and resumes afterwards', async () => {
      const created = await provider.create();
      await created.tree.write('kept.txt', once('kept'));
      await provider.shutdown(created.id);
      const resumed = await provider.resume(created.id);
      expect(resumed.id).toBe(created.id);
      expect(await textOf(resumed, 'kept.txt')).toBe('kept');
      expect((await sh(resumed, 'cat kept.txt')).stdout).toContain('kept');
    });

    it('fails with NOT_FOUND for a sandbox it does not have', async () => {
      for (const call of [
        () => provider.resume(UNKNOWN),
        () => provider.hibernate(UNKNOWN),
        () => provider.shutdown(UNKNOWN),
      ]) {
        await expect(call()).rejects.toMatchObject({
          code: 'NOT_FOUND',
          data: { sandbox: UNKNOWN },
        });
      }
    });

    it('resets: an empty working tree, and the next resume boots clean', async (context) => {
      if (provider.reset === undefined) {
        context.skip();
        return;
      }
      const created = await provider.create();
      await created.tree.write('d/lost.txt', once('lost'));
      await provider.hibernate(created.id);
      await provider.reset(created.id);
      const resumed = await provider.resume(created.id);
      expect(resumed.boot).toBe('clean');
      expect(await resumed.tree.exists()).toBe(true);
      expect(await resumed.tree.list(() => false)).toEqual([]);
      await expect(provider.reset(UNKNOWN)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });
}
