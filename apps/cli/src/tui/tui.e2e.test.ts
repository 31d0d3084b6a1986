/**
 * End to end: the built `satchel` binary (dist/main.js) in a real pseudo-terminal (tmux),
 * driven with keys and read back from the screen. turbo builds the package before its tests
 * (turbo.json, `@satchel/cli#test`); run by hand, build it first.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSatchel } from '@satchel/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const main = join(packageDir, 'dist', 'main.js');
/** A tmux server of our own, so no user's sessions or configuration are touched. */
const socket = `satchel-e2e-${process.pid}`;

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
}

const screen = () => tmux('capture-pane', '-p', '-t', 'tui');

async function see(...texts: string[]): Promise<string> {
  await vi.waitFor(
    () => {
      const shown = screen();
      for (const text of texts) expect(shown).toContain(text);
    },
    { timeout: 20_000, interval: 100 },
  );
  return screen();
}

let dir: string;
beforeAll(async () => {
  if (!existsSync(main)) {
    throw new Error(
      `${main} is missing: build the CLI first (pnpm --filter @satchel/cli... build)`,
    );
  }
  dir = await mkdtemp(join(tmpdir(), 'satchel-e2e-'));
  const engine = await openSatchel({ data: join(dir, 'data') });
  await engine.createWorkspace('demo');
  await engine.writeFile('demo', '/notes.md', '# Notes\n\nfirst\n');
  await engine.writeFile('demo', '/notes.md', '# Notes\n\nsecond\n');
  await engine.close();
});

afterAll(async () => {
  spawnSync('tmux', ['-L', socket, 'kill-server']);
  await rm(dir, { recursive: true, force: true });
});

describe('satchel in a terminal', () => {
  it('opens the TUI, browses, shows history, survives a resize and quits on q', async () => {
    // Ink draws nothing until exit when it believes it runs in CI (CI=1 in .ci/run): a
    // person at a terminal does not have it set.
    const command = `cd ${JSON.stringify(dir)} && unset CI CONTINUOUS_INTEGRATION; SATCHEL_DATA=data NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(main)}; echo "exited $?"; sleep 60`;
    tmux('new-session', '-d', '-s', 'tui', '-x', '120', '-y', '40', 'sh', '-c', command);

    await see('Workspaces', 'demo', '? keys  q quit');
    tmux('send-keys', '-t', 'tui', 'Enter');
    await see('demo:/', 'notes.md');
    tmux('send-keys', '-t', 'tui', 'Down');
    await see('NOTES', 'second');

    tmux('send-keys', '-t', 'tui', 'h');
    await see('History of /notes.md', '-first', '+second');

    tmux('resize-window', '-t', 'tui', '-x', '90', '-y', '24');
    const small = await see('History of /notes.md', 'r restore');
    expect(small.split('\n').every((line) => line.length <= 90)).toBe(true);

    tmux('send-keys', '-t', 'tui', 'q');
    await see('exited 0');
  }, 120_000);
});
