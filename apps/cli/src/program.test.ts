/** Usage, help, version and the mapping of errors to exit codes and messages. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SatchelError } from '@satchel/core';
import type { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeError } from './errors.js';
import { buildProgram } from './program.js';
import { TestCli } from './testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
});
afterEach(async () => {
  await cli.dispose();
});

function leafPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands
    .filter((c) => c.name() !== 'help')
    .flatMap((c) =>
      c.commands.length === 0 ? [[...prefix, c.name()]] : leafPaths(c, [...prefix, c.name()]),
    );
}

describe('usage', () => {
  it('prints help on stdout with exit 0 when run without arguments', async () => {
    const r = await cli.run([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: satchel [options] [command]');
    expect(r.stdout).toContain('Examples:');
  });

  it('gives every command a description and an example', async () => {
    const io = {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      env: {},
      cwd: cli.dir,
      isTTY: false,
    };
    const paths = leafPaths(buildProgram(io));
    expect(paths.length).toBeGreaterThanOrEqual(19);
    for (const path of paths) {
      const r = await cli.run([...path, '--help']);
      expect(r.code, path.join(' ')).toBe(0);
      expect(r.stdout, path.join(' ')).toMatch(/^Usage: satchel .*\n\n\S.+\n/);
      expect(r.stdout, path.join(' ')).toMatch(/\nExamples:\n {2}\$ satchel /);
    }
  });

  it('prints the version', async () => {
    const r = await cli.run(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('exits 2 with commander’s message on an unknown command, flag or missing argument', async () => {
    const unknown = await cli.run(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown command 'frobnicate'");
    const flag = await cli.run(['ls', '--frob']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("error: unknown option '--frob'");
    const missing = await cli.run(['cat']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: missing required argument 'path'");
    expect((await cli.run(['ws'])).code).toBe(2);
    expect(
      (await cli.run(['edit', '/x', '--old', 'a'], { env: { SATCHEL_WORKSPACE: 'w' } })).code,
    ).toBe(2);
  });

  it('reports a fault that is not a Satchel error as an internal error, exit 1', async () => {
    await writeFile(join(cli.dir, 'not-a-dir'), 'x');
    const r = await cli.run(['status', '--data', 'not-a-dir']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^satchel: internal error: .+\nhint: set SATCHEL_DEBUG=1 for details\n$/,
    );
    const debug = await cli.run(['status', '--data', 'not-a-dir'], { env: { SATCHEL_DEBUG: '1' } });
    expect(debug.stderr).toMatch(/\n\s+at /);
  });
});

describe('describeError', () => {
  it('maps every code to its exit code', () => {
    const codes = {
      INVALID_INPUT: 2,
      INVALID_PATH: 2,
      NOT_FOUND: 3,
      CONFLICT: 4,
      PRECONDITION_FAILED: 4,
      LOCKED: 4,
      UNAUTHENTICATED: 5,
      FORBIDDEN: 5,
      TOO_LARGE: 6,
      RATE_LIMITED: 7,
      INTEGRITY: 8,
      INTERNAL: 1,
    } as const;
    for (const [code, exit] of Object.entries(codes)) {
      const report = describeError(
        new SatchelError(code as keyof typeof codes, 'boom'),
        'ls',
        false,
      );
      expect(report.exitCode, code).toBe(exit);
      expect(report.lines[0], code).toBe(
        code === 'INTERNAL' ? 'satchel: internal error: boom' : `satchel: boom (${code})`,
      );
    }
  });

  it('points an unknown key to --as locally and to SATCHEL_TOKEN against a server', () => {
    const error = new SatchelError('UNAUTHENTICATED', 'invalid API key');
    expect(describeError(error, 'ls', false).lines[1]).toMatch(
      /^hint: check the key given to --as/,
    );
    const remote = describeError(error, 'ls', false, true).lines[1];
    expect(remote).toMatch(/^hint: check SATCHEL_TOKEN/);
    expect(remote).not.toContain('--as');
  });

  it('names the service that did not answer in the hint of UNAVAILABLE', () => {
    const hint = (data: Record<string, unknown>, remote: boolean) =>
      describeError(new SatchelError('UNAVAILABLE', 'down', data), 'ls', false, remote).lines[1];
    expect(hint({}, false)).toMatch(/^hint: check that the database is running/);
    expect(hint({}, true)).toMatch(/^hint: the server at SATCHEL_URL cannot reach its storage/);
    const sandbox = hint({ provider: 'codesandbox', call: 'create' }, false);
    expect(sandbox).toMatch(/CSB_API_KEY/);
    expect(sandbox).not.toContain('database');
  });

  it('never shows a stack unless debugging', () => {
    const error = new TypeError('x is undefined');
    expect(describeError(error, 'ls', false).lines.join('\n')).not.toContain(' at ');
    expect(describeError(error, 'ls', true).lines.join('\n')).toContain(' at ');
  });
});
