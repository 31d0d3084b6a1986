/**
 * Two processes on one data directory: a commit or a lock release in one wakes the other's
 * waits through the signal file. The re-check timer is set to a minute and the waits to 25 s, so
 * only the signal can end them within the 10 s these tests allow (a wait that runs out re-reads
 * once more, and would find the change 25 s late).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DataDirSignals } from '../store/data-dir-signals.js';
import { DATABASE_FILE, SIGNALS_SUFFIX } from '../store/open-stores.js';
import { tempDir } from '../test-support/temp.js';
import { startWakeChild, type WakeChild } from '../test-support/wake-child.js';
import { openSatchel } from './open.js';
import type { SatchelEngine } from './satchel-engine.js';

/** Well inside the 25 s wait, and far beyond a signal's few milliseconds even on a loaded machine. */
const WOKEN_WITHIN_MS = 10_000;

let satchel: SatchelEngine;
let child: WakeChild;

beforeEach(async () => {
  const data = await tempDir();
  const signals = DataDirSignals.open(join(data, `${DATABASE_FILE}${SIGNALS_SUFFIX}`), {
    recheckMs: 60_000,
  });
  satchel = await openSatchel({ data, signals });
  await satchel.createWorkspace('ws');
  expect(signals.watching).toBe(true);
  child = await startWakeChild(data);
});

afterEach(async () => {
  await child.close();
  await satchel.close();
});

it('a write in another process wakes a long poll here', async () => {
  const { seq } = await satchel.getWorkspace('ws');
  const waiting = satchel
    .listChanges('ws', { after: seq, waitSeconds: 25 })
    .then((page) => ({ page, at: Date.now() }));
  expect(await child.send('write /woke.txt')).toMatch(/^ok \d+ /);
  const written = Date.now();
  const { page, at } = await waiting;
  expect(page.events.map((e) => e.path)).toEqual(['/woke.txt']);
  expect(at - written).toBeLessThan(WOKEN_WITHIN_MS);
});

it('a lock released in another process wakes a waiting acquireLock here', async () => {
  const held = await child.send('lock /l.txt');
  expect(held).toMatch(/^locked /);
  const waiting = satchel
    .acquireLock('ws', { path: '/l.txt', ttlSeconds: 60, waitSeconds: 25 })
    .then((lock) => ({ lock, at: Date.now() }));
  // Queued behind the child's lock, which lasts 120 s.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await child.send(`release ${held.slice('locked '.length)}`)).toBe('ok');
  const released = Date.now();
  const { lock, at } = await waiting;
  expect(lock.path).toBe('/l.txt');
  expect(at - released).toBeLessThan(WOKEN_WITHIN_MS);
});

// Reads here may come from the connection's read cache (store/metadata/sqlite-read-cache.ts):
// another process's commit must reach the very next read, with no signal or timer in between.
it('a write in another process is what the next read here returns', async () => {
  await satchel.writeFile('ws', '/r.txt', 'mine');
  for (let n = 0; n < 3; n++) {
    expect((await satchel.readText('ws', '/r.txt')).text).toBe('mine');
  }
  // The child writes the time of its write (Date.now()).
  const before = Date.now();
  expect(await child.send('write /r.txt')).toMatch(/^ok \d+ /);
  const { text } = await satchel.readText('ws', '/r.txt');
  expect(Number(text)).toBeGreaterThanOrEqual(before);
});

it('a role taken away in another process refuses the next read here', async () => {
  await satchel.createPrincipal({ name: 'bot' });
  await satchel.setMember('ws', 'bot', 'viewer');
  const { key } = await satchel.createKey({ principal: 'bot' });
  const bot = satchel.as(await satchel.authenticate(key));
  await satchel.writeFile('ws', '/r.txt', 'shared');
  for (let n = 0; n < 3; n++) {
    expect((await bot.readText('ws', '/r.txt')).text).toBe('shared');
  }
  expect(await child.send('unmember bot')).toBe('ok');
  await expect(bot.readText('ws', '/r.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
});
