import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSatchel } from '../engine/open.js';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { readAll } from '../test-support/temp.js';

type Outcome = 'ok' | 'FORBIDDEN' | 'NOT_FOUND' | 'UNAUTHENTICATED';
type Level = 'any' | 'read' | 'write' | 'owner-read' | 'owner' | 'admin';

interface Op {
  readonly name: string;
  readonly level: Level;
  /** Runs the call as `s`; `tag` makes paths unique per attempt; `inside` targets the key's prefix. */
  run(s: Satchel, tag: string, inside: boolean): Promise<unknown>;
}

const dir = (inside: boolean) => (inside ? '/agent-output' : '/notes');

const OPS: Op[] = [
  { name: 'getWorkspace', level: 'read', run: (s) => s.getWorkspace('ws') },
  { name: 'list', level: 'read', run: (s) => s.list('ws', { recursive: true }) },
  { name: 'stat', level: 'read', run: (s) => s.stat('ws', '/notes/base.txt') },
  {
    name: 'readFile',
    level: 'read',
    run: async (s) => readAll((await s.readFile('ws', '/notes/base.txt')).body),
  },
  { name: 'readText', level: 'read', run: (s) => s.readText('ws', '/notes/base.txt') },
  { name: 'listVersions', level: 'read', run: (s) => s.listVersions('ws', '/notes/base.txt') },
  { name: 'diff', level: 'read', run: (s) => s.diff('ws', '/notes/base.txt') },
  { name: 'listLocks', level: 'read', run: (s) => s.listLocks('ws') },
  { name: 'listMembers', level: 'read', run: (s) => s.listMembers('ws') },
  {
    name: 'writeFile',
    level: 'write',
    run: (s, t, inside) => s.writeFile('ws', `${dir(inside)}/w-${t}`, 'x'),
  },
  {
    name: 'writeFiles',
    level: 'write',
    run: (s, t, inside) => s.writeFiles('ws', [{ path: `${dir(inside)}/b-${t}`, content: 'x' }]),
  },
  {
    name: 'appendFile',
    level: 'write',
    run: (s, t, inside) => s.appendFile('ws', `${dir(inside)}/a-${t}`, 'x'),
  },
  { name: 'mkdir', level: 'write', run: (s, t, inside) => s.mkdir('ws', `${dir(inside)}/d-${t}`) },
  {
    name: 'editFile',
    level: 'write',
    run: (s, t, inside) =>
      s.editFile('ws', `${dir(inside)}/edit-${t}`, [{ oldText: 'e', newText: 'E' }]),
  },
  {
    name: 'remove',
    level: 'write',
    run: (s, t, inside) => s.remove('ws', `${dir(inside)}/victim-${t}`),
  },
  {
    name: 'move',
    level: 'write',
    run: (s, t, inside) => s.move('ws', `${dir(inside)}/victim-${t}`, `${dir(inside)}/moved-${t}`),
  },
  {
    name: 'copy',
    level: 'write',
    run: (s, t, inside) => s.copy('ws', '/notes/base.txt', `${dir(inside)}/copy-${t}`),
  },
  {
    name: 'restore',
    level: 'write',
    run: (s, t, inside) =>
      s.restore(
        'ws',
        `${dir(inside)}/edit-${t}`,
        firstVersions.get(`${dir(inside)}/edit-${t}`) ?? 0,
      ),
  },
  {
    name: 'acquireLock',
    level: 'write',
    run: async (s, t, inside) =>
      s.acquireLock('ws', { path: `${dir(inside)}/l-${t}`, ttlSeconds: 5 }),
  },
  {
    name: 'listAudit',
    level: 'owner-read',
    run: (s) => s.listAudit({ workspace: 'ws', limit: 1 }),
  },
  { name: 'setMember', level: 'owner', run: (s) => s.setMember('ws', 'helper', 'viewer') },
  { name: 'offerTransfer', level: 'owner', run: (s) => s.offerTransfer('ws') },
  { name: 'listTransfers', level: 'owner', run: (s) => s.listTransfers('ws') },
  {
    name: 'breakLock',
    level: 'owner',
    run: (s, t) => s.breakLock('ws', fixtureLocks.get(t) ?? ''),
  },
  {
    name: 'deleteWorkspace',
    level: 'owner',
    run: (s, t) => s.deleteWorkspace(`del-${t}`),
  },
  { name: 'listWorkspaces', level: 'any', run: (s) => s.listWorkspaces() },
  { name: 'whoami', level: 'any', run: (s) => s.whoami() },
  { name: 'listKeys', level: 'any', run: (s) => s.listKeys() },
  {
    name: 'exportAudit',
    level: 'admin',
    run: async (s) => s.exportAudit()[Symbol.asyncIterator]().next(),
  },
  { name: 'createPrincipal', level: 'admin', run: (s, t) => s.createPrincipal({ name: `p-${t}` }) },
  { name: 'listPrincipals', level: 'admin', run: (s) => s.listPrincipals() },
  { name: 'fsck', level: 'admin', run: (s) => s.fsck() },
  { name: 'collectGarbage', level: 'admin', run: (s) => s.collectGarbage({ dryRun: true }) },
  { name: 'verifyAudit', level: 'admin', run: (s) => s.verifyAudit() },
];

interface Subject {
  readonly name: string;
  /** Expected outcome per level; `inside` applies to path-scoped keys. */
  expect(level: Level, inside: boolean): Outcome;
}

const role =
  (granted: Level[]) =>
  (level: Level): Outcome =>
    level === 'any' || granted.includes(level) ? 'ok' : 'FORBIDDEN';

const SUBJECTS: Subject[] = [
  { name: 'owner', expect: role(['read', 'write', 'owner-read', 'owner']) },
  { name: 'editor', expect: role(['read', 'write']) },
  { name: 'viewer', expect: role(['read']) },
  {
    name: 'stranger',
    expect: (level) => (level === 'any' ? 'ok' : level === 'admin' ? 'FORBIDDEN' : 'NOT_FOUND'),
  },
  {
    name: 'read-only',
    expect: role(['read', 'owner-read']),
  },
  {
    name: 'path-scoped',
    expect: (level, inside) =>
      level === 'any' || level === 'read' || (level === 'write' && inside) ? 'ok' : 'FORBIDDEN',
  },
];

let engine: SatchelEngine;
const keys = new Map<string, string>();
const firstVersions = new Map<string, number>();
const fixtureLocks = new Map<string, string>();
/** Each subject's principal and role in "ws", mirrored in the per-attempt workspaces. */
const MEMBERSHIP: Record<string, [string, 'owner' | 'editor' | 'viewer'] | null> = {
  owner: ['owner', 'owner'],
  editor: ['editor', 'editor'],
  viewer: ['viewer', 'viewer'],
  stranger: null,
  'read-only': ['owner', 'owner'],
  'path-scoped': ['editor', 'editor'],
};
let now = Date.parse('2026-12-01T00:00:00Z');

async function outcome(promise: Promise<unknown>): Promise<Outcome | string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** Files the write operations of one attempt need, created by the admin. */
async function fixtures(tag: string, subject: string): Promise<void> {
  fixtureLocks.set(tag, (await engine.acquireLock('ws', { path: `/locked/${tag}` })).id);
  await engine.createWorkspace(`del-${tag}`);
  const membership = MEMBERSHIP[subject];
  if (membership) await engine.setMember(`del-${tag}`, membership[0], membership[1]);
  for (const d of ['/notes', '/agent-output']) {
    await engine.writeFile('ws', `${d}/victim-${tag}`, 'v');
    const first = await engine.writeFile('ws', `${d}/edit-${tag}`, 'e');
    firstVersions.set(first.path, first.seq);
    await engine.writeFile('ws', `${d}/edit-${tag}`, 'e2');
  }
}

describe('authorisation matrix', () => {
  let root = '';
  // One engine for the whole matrix (per-test temp dirs are removed after each test).
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'satchel-authz-'));
    const data = join(root, 'data');
    engine = await openSatchel({ data, clock: () => now });
    await engine.createWorkspace('ws');
    for (const name of ['owner', 'editor', 'viewer', 'stranger', 'helper']) {
      await engine.createPrincipal({ name, kind: name === 'viewer' ? 'user' : 'agent' });
    }
    await engine.setMember('ws', 'owner', 'owner');
    await engine.setMember('ws', 'editor', 'editor');
    await engine.setMember('ws', 'viewer', 'viewer');
    for (const name of ['owner', 'editor', 'viewer', 'stranger']) {
      keys.set(name, (await engine.createKey({ principal: name })).key);
    }
    keys.set('read-only', (await engine.createKey({ principal: 'owner', readOnly: true })).key);
    keys.set(
      'path-scoped',
      (await engine.createKey({ principal: 'editor', pathPrefixes: ['/agent-output'] })).key,
    );
    const revoked = await engine.createKey({ principal: 'editor' });
    await engine.revokeKey(revoked.info.id);
    keys.set('revoked', revoked.key);
    keys.set(
      'expired',
      (await engine.createKey({ principal: 'editor', expiresInSeconds: 60 })).key,
    );
    now += 61_000;
    await engine.writeFile('ws', '/notes/base.txt', 'base\n');
    await engine.writeFile('ws', '/notes/base.txt', 'base 2\n');
  });

  afterAll(async () => {
    await engine.close();
    await rm(root, { recursive: true, force: true });
  });

  it('revoked and expired keys are not accepted at all', async () => {
    for (const name of ['revoked', 'expired']) {
      await expect(engine.authenticate(keys.get(name) ?? '')).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
      });
    }
    await expect(engine.authenticate('satchel_nonsense')).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });

  for (const subject of SUBJECTS) {
    it(`${subject.name}: every call is allowed or refused as its role and key say`, async () => {
      const satchel = engine.as(await engine.authenticate(keys.get(subject.name) ?? ''));
      const mismatches: string[] = [];
      let attempt = 0;
      for (const op of OPS) {
        for (const inside of subject.name === 'path-scoped' ? [true, false] : [false]) {
          const tag = `${subject.name}-${attempt++}`;
          await fixtures(tag, subject.name);
          const before = await engine.getWorkspace('ws');
          const got = await outcome(op.run(satchel, tag, inside));
          const want = subject.expect(op.level, inside);
          if (got !== want)
            mismatches.push(
              `${op.name}${inside ? ' (inside prefix)' : ''}: ${got}, expected ${want}`,
            );
          if (want !== 'ok') {
            const after = await engine.getWorkspace('ws');
            if (after.seq !== before.seq)
              mismatches.push(`${op.name}: refused but changed the workspace`);
          }
        }
      }
      expect(mismatches).toEqual([]);
    });
  }

  it('a stranger cannot tell a hidden workspace from a missing one', async () => {
    const stranger = engine.as(await engine.authenticate(keys.get('stranger') ?? ''));
    const hidden = await outcome(stranger.readFile('ws', '/notes/base.txt'));
    const missing = await outcome(stranger.readFile('nope', '/notes/base.txt'));
    expect([hidden, missing]).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    expect((await stranger.listWorkspaces()).items).toEqual([]);
    const viewer = engine.as(await engine.authenticate(keys.get('viewer') ?? ''));
    // The viewer sees "ws" (and the per-attempt workspaces it was made a member of), never others'.
    const seen = (await viewer.listWorkspaces({ limit: 1000 })).items.map((w) => w.name);
    expect(seen).toContain('ws');
    expect(seen.every((name) => name === 'ws' || name.startsWith('del-viewer-'))).toBe(true);
  });

  it('refused calls land in the audit log as refusals', async () => {
    const viewer = engine.as(await engine.authenticate(keys.get('viewer') ?? ''));
    await expect(
      viewer.writeFile('ws', '/notes/nope', 'x', { session: 'audit-check' }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await engine.verifyAudit();
    const entries = [];
    let cursor: string | undefined;
    do {
      const page = await engine.listAudit({
        workspace: 'ws',
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      entries.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(entries.find((e) => e.session === 'audit-check')).toMatchObject({
      actor: 'viewer',
      action: 'writeFile',
      path: '/notes/nope',
      outcome: 'refused',
      code: 'FORBIDDEN',
    });
  });
});
