/**
 * The terminal UI driven by key presses over a real engine on a temp data directory (and once
 * over HTTP against a live server), asserting on what the screen shows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@satchel/api';
import { openSatchel, RemoteSatchel, type SatchelEngine } from '@satchel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY, renderTui, type Tui } from './testing.js';

let dir: string;
let engine: SatchelEngine;
let tui: Tui | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'satchel-tui-'));
  engine = await openSatchel({ data: join(dir, 'data') });
  await engine.createWorkspace('demo');
  await engine.writeFile('demo', '/notes.txt', 'hello\nfirst draft\n');
  await engine.writeFile('demo', '/notes.txt', 'hello\nsecond draft\n', { session: 'agent-7' });
  await engine.writeFile(
    'demo',
    '/docs/guide.md',
    '# Guide\n\n- **bold** step\n\n```\ncode here\n```\n',
  );
  await engine.writeFile('demo', '/blob.bin', new Uint8Array([0, 1, 2, 255, 0, 7]));
});
afterEach(async () => {
  tui?.unmount();
  tui = undefined;
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

/** Opens `demo` from the workspaces screen; the tree lists docs/, blob.bin, notes.txt. */
async function openDemo(): Promise<Tui> {
  const opened = renderTui(engine);
  tui = opened;
  await opened.see('Workspaces', 'demo');
  await opened.press(KEY.enter);
  await opened.see('demo:/', 'notes.txt', 'blob.bin', 'docs/');
  return opened;
}

describe('the terminal UI', () => {
  it('opens a workspace, shows a file, its history and a coloured diff, and restores a version', async () => {
    const t = await openDemo();
    await t.press(KEY.down, KEY.down);
    await t.see('/notes.txt', '1 │ hello', '2 │ second draft', 'admin');

    await t.press('h');
    await t.see('History of /notes.txt', '2 versions', '[agent-7]');
    await t.see('-first draft', '+second draft');

    await t.press(KEY.down, 'r');
    await t.see('Restore /notes.txt to version 1? [y/n]');
    await t.press('y');
    await t.see('restored /notes.txt to v1 as v5', '3 versions');
    const restored = await engine.readText('demo', '/notes.txt');
    expect(restored.text).toBe('hello\nfirst draft\n');
  });

  it('compares any two versions: mark one, select another', async () => {
    await engine.writeFile('demo', '/notes.txt', 'hello\nthird draft\n');
    const t = await openDemo();
    await t.press(KEY.down, KEY.down, 'h');
    await t.see('3 versions', '-second draft', '+third draft');
    await t.press('m', KEY.down, KEY.down);
    await t.see('v1 → v5', '-first draft', '+third draft');
  });

  it('renders Markdown readably and describes binary files', async () => {
    const t = await openDemo();
    await t.press(KEY.right);
    await t.see('▾ docs/', 'guide.md');
    await t.press(KEY.down);
    await t.see('GUIDE', '• bold step', 'code here');
    expect(t.frame()).not.toContain('**bold**');
    await t.press(KEY.down);
    await t.see('binary file', 'size    6 B (6 bytes)', 'sha256  ');
  });

  it('shows a lock another client takes, counts it down, and breaks it after confirmation', async () => {
    await engine.createPrincipal({ name: 'bob' });
    await engine.setMember('demo', 'bob', 'editor');
    const { key } = await engine.createKey({ principal: 'bob' });
    const bob = engine.as(await engine.authenticate(key));

    const t = await openDemo();
    await t.press('2');
    await t.see('Locks in demo', 'no live locks');
    const lock = await bob.acquireLock('demo', { path: '/notes.txt', ttlSeconds: 300 });
    await t.see('/notes.txt', 'exclusive', 'bob', `token ${lock.token}`, 'expires in 4m');

    await t.press('b');
    await t.see('Break bob’s lock on /notes.txt? [y/n]');
    await t.press('y');
    await t.see('broke bob’s lock on /notes.txt', 'no live locks');
    expect(await engine.listLocks('demo')).toEqual([]);
  });

  it('follows the change feed: a change made meanwhile appears in the activity view', async () => {
    const t = await openDemo();
    await t.press('3');
    await t.see('Activity in demo', 'live', '/notes.txt');
    await engine.writeFile('demo', '/fresh.txt', 'new\n', { session: 'run-9' });
    await t.see('/fresh.txt', 'admin [run-9]', 'write');
  });

  it('previews undoing a session from the activity view, with its diff, and applies it in one seq', async () => {
    await engine.writeFile('demo', '/docs/guide.md', '# Guide\n\nrewritten by the run\n', {
      session: 'run-9',
    });
    await engine.writeFile('demo', '/made.txt', 'made by the run\n', { session: 'run-9' });
    const t = await openDemo();
    await t.press('3');
    await t.see('Activity in demo', 'admin [run-9]', '/made.txt');
    await t.press('u');
    await t.see('Undo session run-9', '1 to revert, 1 to delete', 'delete', '/made.txt');
    await t.see('-rewritten by the run', '+- **bold** step');
    await t.press('a');
    await t.see('Undo 2 changes of session run-9 in one new seq? [y/n]');
    const head = (await engine.getWorkspace('demo')).seq;
    await t.press('y');
    await t.see(`undid session run-9 in seq ${head + 1} as session undo:${head + 1}`);
    await expect(engine.stat('demo', '/made.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const guide = await engine.readText('demo', '/docs/guide.md');
    expect(guide.text).toContain('**bold** step');
  });

  it('shows the audit log with the verification result', async () => {
    const t = await openDemo();
    await t.press('4');
    await t.see('Audit log of demo', 'chain verified:', 'writeFile');
  });

  it('searches with grep and opens a hit in the browser at its line', async () => {
    const t = await openDemo();
    await t.press('/');
    await t.see('grep>');
    await t.press(...'second'.split(''), KEY.enter);
    await t.see('/notes.txt:2', 'second draft', '1 lines');
    await t.press(KEY.enter);
    await t.see('demo:/', '▶ /notes.txt', '2 │ second draft');
  });

  it('searches a pasted query that ends in Enter at once', async () => {
    const t = await openDemo();
    await t.press('/', 'DRAFT\r');
    await t.see('grep> DRAFT', '/notes.txt:2', 'second draft');
  });

  it('shows the keys on ? and keeps typed letters in the search box', async () => {
    const t = await openDemo();
    await t.press('?');
    await t.see('Keys', 'quit', 'break the selected lock');
    await t.press('?');
    await t.see('demo:/');
    await t.press('/', 'q', '?');
    await t.see('grep> q?');
  });

  it('opens a workspace given with -w directly', async () => {
    tui = renderTui(engine, 'demo');
    await tui.see('demo:/', 'notes.txt');
  });
});

describe('the terminal UI against a server', () => {
  it('browses and shows history over HTTP', async () => {
    const server = await serve(engine, { port: 0, api: { logFault: () => undefined } });
    const remote = new RemoteSatchel({ url: server.url, token: engine.createdAdminKey ?? '' });
    try {
      const t = renderTui(remote);
      tui = t;
      await t.see('demo');
      await t.press(KEY.enter);
      await t.see('notes.txt');
      await t.press(KEY.down, KEY.down);
      await t.see('2 │ second draft');
      await t.press('h');
      await t.see('History of /notes.txt', '+second draft');
    } finally {
      tui?.unmount();
      tui = undefined;
      await remote.close();
      await server.close();
    }
  });
});
