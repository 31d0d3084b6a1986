/** `satchel serve` as a real process: first-start key, /healthz, clean exit on SIGTERM. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

let data: string;
let child: ChildProcess | undefined;
beforeEach(async () => {
  data = await mkdtemp(join(tmpdir(), 'satchel-serve-'));
});
afterEach(async () => {
  if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
  await rm(data, { recursive: true, force: true });
});

interface Started {
  readonly process: ChildProcess;
  readonly url: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
}

/** Spawns `satchel serve …` and resolves once it prints the address it listens on. */
async function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', ...args], {
    cwd: packageDir,
    env: { ...process.env, SATCHEL_DATA: data, NO_COLOR: '1', ...env },
  });
  child = proc;
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  proc.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    proc.stdout.on('data', check);
    proc.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  return { process: proc, url, stdout: () => stdout, stderr: () => stderr };
}

async function exitCode(proc: ChildProcess): Promise<number | null> {
  if (proc.exitCode !== null) return proc.exitCode;
  const [code] = (await once(proc, 'exit')) as [number | null];
  return code;
}

describe('satchel serve', () => {
  it('prints the admin key once, answers /healthz and the API, and exits 0 on SIGTERM', async () => {
    // SATCHEL_URL names a server for client commands; serve still serves its data directory.
    const first = await start(['--port', '0', '--host', '127.0.0.1'], {
      SATCHEL_URL: 'http://127.0.0.1:9',
    });
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const key = (await readFile(join(data, 'admin.key'), 'utf8')).trim();
    expect(first.stdout()).toContain(`created the admin key (saved in ${join(data, 'admin.key')}`);
    expect(first.stdout()).toContain(key);

    const health = await fetch(`${first.url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const whoami = await fetch(`${first.url}/v1/whoami`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(await whoami.json()).toMatchObject({ principal: 'admin', admin: true });

    first.process.kill('SIGTERM');
    expect(await exitCode(first.process)).toBe(0);
    expect(first.stderr()).toContain('SIGTERM: finishing requests in flight');

    // Second start on the same data directory: the key is not shown again.
    const second = await start([], { SATCHEL_PORT: '0' });
    expect(second.stdout()).not.toContain(key);
    second.process.kill('SIGINT');
    expect(await exitCode(second.process)).toBe(0);
  }, 60_000);

  it('takes its slow-client limits from flags and the environment', async () => {
    const bad = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      cwd: packageDir,
      env: { ...process.env, SATCHEL_DATA: data, SATCHEL_MAX_UPLOADS: 'many' },
    });
    let stderr = '';
    bad.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    expect(await exitCode(bad)).toBe(2);
    expect(stderr).toContain('invalid SATCHEL_MAX_UPLOADS "many"');

    const running = await start(['--port', '0', '--header-timeout', '1s'], {
      SATCHEL_BODY_IDLE_TIMEOUT: '1s',
    });
    // Headers trickled one line at a time are cut off after the header timeout.
    const socket = connect(Number(new URL(running.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    const trickle = setInterval(() => socket.write('X-Slow: 1\r\n'), 200);
    const started = Date.now();
    await closed;
    clearInterval(trickle);
    expect(Date.now() - started).toBeLessThan(5000);
    running.process.kill('SIGTERM');
    expect(await exitCode(running.process)).toBe(0);
  }, 60_000);

  it('exits 2 with one line for a bad port or one in use', async () => {
    const bad = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      cwd: packageDir,
      env: { ...process.env, SATCHEL_DATA: data, SATCHEL_PORT: 'http' },
    });
    let stderr = '';
    bad.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    expect(await exitCode(bad)).toBe(2);
    expect(stderr).toContain('invalid SATCHEL_PORT "http"');

    const running = await start(['--port', '0']);
    const port = new URL(running.url).port;
    const clash = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', 'serve', '--port', port],
      {
        cwd: packageDir,
        env: { ...process.env, SATCHEL_DATA: data },
      },
    );
    let clashErr = '';
    clash.stderr.on('data', (chunk: Buffer) => {
      clashErr += chunk.toString();
    });
    expect(await exitCode(clash)).toBe(2);
    expect(clashErr).toContain('is already in use');
    running.process.kill('SIGTERM');
    expect(await exitCode(running.process)).toBe(0);
  }, 60_000);
});
