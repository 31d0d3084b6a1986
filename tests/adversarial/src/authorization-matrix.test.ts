/**
 * The authorisation matrix, from outside: every REST route (derived from core's operation table,
 * plus the hand-written file, change-feed, batch, lock and audit routes) × every kind of key.
 * Whatever the arguments: never a 5xx; never a 2xx where the key's role, scope or expiry forbids
 * the call; a workspace the key may not see is 404, never 403 (its existence stays secret).
 *
 * The least role of each action is written down here on purpose, from docs/access.md, not read
 * from core: the test states the policy an attacker is up against, and a change to it in core
 * must show up here.
 */
import { OPERATION_NAMES, OPERATIONS } from '@satchel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, KEY_KINDS, type KeyKind, type World } from './support.js';

type Role = 'viewer' | 'editor' | 'owner';
const RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };

/** docs/access.md: the least role each workspace action needs. */
const LEAST_ROLE: Record<string, Role> = {
  'workspace.read': 'viewer',
  'file.read': 'viewer',
  'lock.read': 'viewer',
  'member.read': 'viewer',
  'file.write': 'editor',
  'lock.write': 'editor',
  'lock.break': 'owner',
  'member.manage': 'owner',
  'transfer.manage': 'owner',
  'audit.read': 'owner',
  'workspace.delete': 'owner',
  'webhook.read': 'owner',
  'webhook.manage': 'owner',
  'workspace.manage': 'owner',
  'comment.read': 'viewer',
  'comment.write': 'viewer',
  'share.read': 'editor',
  'share.manage': 'editor',
};

/** What a key kind may do in `demo`. */
const DEMO_ROLE: Partial<Record<KeyKind, Role>> = {
  viewer: 'viewer',
  editor: 'editor',
  owner: 'owner',
  pathPrefix: 'editor',
  readOnly: 'owner',
};

/** The verdict the matrix holds a response to. */
type Verdict =
  /** 401: the key does not authenticate. */
  | 'unauthenticated'
  /** Refused: not 2xx (403, or a 400/404 from arguments checked first). */
  | 'denied'
  /** The workspace does not exist for this key: 404, not 403. */
  | 'hidden'
  /** Allowed: not 401 and not 403 (arguments may still be refused). */
  | 'allowed'
  /** No opinion beyond "no 5xx, no 401 for a valid key". */
  | 'any';

interface Route {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** The workspace action, a global one, `self`, or null when it depends on the arguments. */
  readonly access: { workspace: string; writesPath?: boolean } | { global: string } | 'self' | null;
  /** Destructive for the shared world when it succeeds: sent only with keys that must fail. */
  readonly destructive?: boolean;
}

/** Plausible arguments per operation, so that calls get past validation to the decision. */
const BODIES: Record<string, unknown> = {
  createWorkspace: { name: 'made-by-matrix' },
  updateWorkspace: { indexing: true },
  copy: { from: '/notes.md', to: '/copy.md' },
  editFile: { path: '/notes.md', edits: [{ oldText: 'hello', newText: 'hello' }], dryRun: true },
  mkdir: { path: '/dir' },
  move: { from: '/nothing.md', to: '/nowhere.md' },
  restore: { path: '/notes.md', seq: 1 },
  ask: { question: 'hello?' },
  acquireLock: { path: '/notes.md', ttlSeconds: 5 },
  renewLock: { ttlSeconds: 5 },
  acceptTransfer: { code: 'not-a-code' },
  createKey: { label: 'matrix' },
  createPrincipal: { name: 'made-by-matrix', kind: 'agent' },
  offerTransfer: {},
  setMember: { role: 'viewer' },
  createWebhook: { url: 'https://hooks.example.com/x', events: ['write'] },
  updateWebhook: { enabled: false },
  createUpload: { path: '/notes.md', size: 3 },
};
const QUERIES: Record<string, string> = { grep: '?pattern=hello', search: '?q=hello' };
const DESTRUCTIVE = new Set(['deleteWorkspace', 'offerTransfer']);

function fill(path: string): string {
  return path
    .replace(':ws', 'demo')
    .replace(':principal', 'nobody')
    .replace(/:[a-z]+/g, 'no-such-id')
    .replace('*', 'notes.md');
}

function derivedRoutes(): Route[] {
  const routes: Route[] = [];
  for (const name of OPERATION_NAMES) {
    const spec = OPERATIONS[name];
    if ('custom' in spec.http) continue;
    const access = spec.access;
    routes.push({
      name,
      method: spec.http.method,
      path: `/v1${fill(spec.http.path)}${QUERIES[name] ?? ''}`,
      ...(BODIES[name] === undefined && spec.http.method === 'GET'
        ? {}
        : { body: BODIES[name] ?? {} }),
      access:
        typeof access === 'function'
          ? null
          : 'workspace' in access
            ? { workspace: access.workspace }
            : 'global' in access
              ? { global: access.global }
              : 'self',
      ...(DESTRUCTIVE.has(name) ? { destructive: true } : {}),
    });
  }
  return routes;
}

const FILE = '/v1/workspaces/demo/files/notes.md';
const WRITE = { workspace: 'file.write', writesPath: true } as const;
const READ = { workspace: 'file.read' } as const;

/** The routes written by hand (operations whose `http` is `custom`). */
const HAND_WRITTEN: Route[] = [
  { name: 'readFile', method: 'GET', path: FILE, access: READ },
  { name: 'stat', method: 'HEAD', path: FILE, access: READ },
  // readText is the client slicing a readFile: the same route, with a range.
  { name: 'readText', method: 'GET', path: FILE, headers: { Range: 'bytes=0-2' }, access: READ },
  { name: 'writeFile', method: 'PUT', path: FILE, body: 'hello\n', access: WRITE },
  {
    name: 'writeFileByHash',
    method: 'PUT',
    path: '/v1/workspaces/demo/files/by-hash.md',
    headers: { 'Satchel-Content-Hash': 'a'.repeat(64) },
    access: WRITE,
  },
  { name: 'appendFile', method: 'POST', path: `${FILE}?append`, body: 'more\n', access: WRITE },
  {
    name: 'remove',
    method: 'DELETE',
    path: '/v1/workspaces/demo/files/missing.md',
    access: WRITE,
  },
  { name: 'diff', method: 'GET', path: '/v1/workspaces/demo/diff?path=/notes.md', access: READ },
  {
    name: 'listChanges',
    method: 'GET',
    path: '/v1/workspaces/demo/changes?after=0',
    access: READ,
  },
  {
    name: 'writeFiles',
    method: 'POST',
    path: '/v1/workspaces/demo/batch',
    body: { files: [{ path: '/batch.md', content: 'b' }] },
    access: WRITE,
  },
  {
    name: 'releaseLock',
    method: 'DELETE',
    path: '/v1/workspaces/demo/locks/no-such-lock',
    access: { workspace: 'lock.write' },
  },
  {
    name: 'breakLock',
    method: 'DELETE',
    path: '/v1/workspaces/demo/locks/no-such-lock?break=true',
    access: { workspace: 'lock.break' },
  },
  {
    name: 'listAudit',
    method: 'GET',
    path: '/v1/workspaces/demo/audit',
    access: { workspace: 'audit.read' },
  },
  { name: 'listAudit (all)', method: 'GET', path: '/v1/audit', access: { global: 'admin' } },
  {
    name: 'appendUpload',
    method: 'PATCH',
    path: '/v1/workspaces/demo/uploads/no-such-upload',
    headers: { 'Upload-Offset': '0' },
    body: 'bytes',
    access: { workspace: 'file.write' },
  },
  { name: 'createUploadUrl', method: 'POST', path: `${FILE}?upload-url`, access: WRITE },
  { name: 'createDownloadUrl', method: 'POST', path: `${FILE}?download-url`, access: READ },
  { name: 'exportAudit', method: 'GET', path: '/v1/audit/export', access: { global: 'admin' } },
  // Batch transfer: every path of the stream or list is checked again inside the engine.
  {
    name: 'uploadFiles',
    method: 'POST',
    path: '/v1/workspaces/demo/batch/upload',
    body: '',
    access: { workspace: 'file.write' },
  },
  {
    name: 'downloadFiles',
    method: 'POST',
    path: '/v1/workspaces/demo/batch/download',
    body: { files: [{ path: '/notes.md' }] },
    access: READ,
  },
];

const isRead = (action: string) => action.endsWith('.read');

function verdict(route: Route, kind: KeyKind): Verdict {
  if (kind === 'none' || kind === 'garbage' || kind === 'revoked' || kind === 'expired') {
    return 'unauthenticated';
  }
  const access = route.access;
  if (access === null || access === 'self') return 'any';
  if ('global' in access) {
    if (access.global === 'admin') return 'denied';
    if (access.global === 'workspace.create') {
      return kind === 'otherWorkspace' || kind === 'readOnly' ? 'denied' : 'any';
    }
    return 'any';
  }
  if (kind === 'otherWorkspace') return 'hidden';
  const role = DEMO_ROLE[kind];
  const needed = LEAST_ROLE[access.workspace];
  if (role === undefined || needed === undefined) throw new Error(`no policy for ${route.name}`);
  if (RANK[role] < RANK[needed]) return 'denied';
  if (kind === 'readOnly' && !isRead(access.workspace)) return 'denied';
  // The prefix key's role allows writes, but /notes.md & co. lie outside its prefix.
  if (kind === 'pathPrefix' && 'writesPath' in access) return 'denied';
  if (kind === 'pathPrefix' && !isRead(access.workspace)) return 'any';
  return 'allowed';
}

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => {
  await world.close();
});

const ROUTES = [...derivedRoutes(), ...HAND_WRITTEN];

describe('the authorisation matrix', () => {
  it('covers every operation of the table', () => {
    const covered = new Set(ROUTES.map((r) => r.name));
    expect(OPERATION_NAMES.filter((name) => !covered.has(name))).toEqual([]);
  });

  for (const kind of KEY_KINDS) {
    it(`holds for a key that is ${kind}`, async () => {
      const failures: string[] = [];
      for (const route of ROUTES) {
        const expected = verdict(route, kind);
        if (route.destructive && expected !== 'denied' && expected !== 'hidden') {
          if (expected !== 'unauthenticated') continue;
        }
        const res = await world.request(route.method, route.path, {
          key: world.keys[kind],
          ...(route.body === undefined ? {} : { body: route.body }),
          ...(route.headers === undefined ? {} : { headers: route.headers }),
        });
        await res.body?.cancel();
        const s = res.status;
        const where = `${route.method} ${route.path} (${route.name}) as ${kind}: ${s}, expected ${expected}`;
        const ok2xx = s >= 200 && s < 300;
        if (s >= 500) failures.push(where);
        else if (expected === 'unauthenticated' && s !== 401) failures.push(where);
        else if (expected === 'denied' && (ok2xx || s === 401)) failures.push(where);
        else if (expected === 'hidden' && s !== 404 && s !== 400) failures.push(where);
        else if (expected === 'allowed' && (s === 401 || s === 403)) failures.push(where);
        else if (expected === 'any' && s === 401) failures.push(where);
        // A workspace the key may not see is never answered with 403.
        if (kind === 'otherWorkspace' && route.path.includes('/workspaces/demo') && s === 403) {
          failures.push(`${where} (403 reveals the workspace)`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('answers a stranger to a workspace exactly as for one that does not exist', async () => {
    const seen = await world.request('GET', '/v1/workspaces/demo/files/notes.md', {
      key: world.keys.otherWorkspace,
    });
    const absent = await world.request('GET', '/v1/workspaces/nope/files/notes.md', {
      key: world.keys.otherWorkspace,
    });
    expect(seen.status).toBe(404);
    expect(absent.status).toBe(404);
    const a = (await seen.json()) as Record<string, unknown>;
    const b = (await absent.json()) as Record<string, unknown>;
    expect(a.code).toBe(b.code);
    expect(String(a.detail).replace('demo', 'X')).toBe(String(b.detail).replace('nope', 'X'));
  });

  it('lets the prefix key write beneath its prefix and nowhere else', async () => {
    const key = world.keys.pathPrefix;
    const inside = await world.request('PUT', '/v1/workspaces/demo/files/agent-output/r.md', {
      key,
      body: 'ok',
    });
    expect(inside.ok).toBe(true);
    for (const path of ['/agent-output-evil/r.md', '/agent-outputs.md', '/r.md']) {
      const res = await world.request('PUT', `/v1/workspaces/demo/files${path}`, {
        key,
        body: 'no',
      });
      expect(res.status, path).toBe(403);
    }
    const moved = await world.request('POST', '/v1/workspaces/demo/move', {
      key,
      body: { from: '/agent-output/r.md', to: '/escaped.md' },
    });
    expect(moved.status).toBe(403);
  });
});
