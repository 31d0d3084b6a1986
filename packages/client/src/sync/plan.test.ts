/** The three-way planner on plain maps: every rule of plan.ts, the guard, resets, conflict names. */
import { describe, expect, it } from 'vitest';
import { conflictPath, isReset, type LocalFile, plan, type RemoteFile } from './plan.js';
import type { FileState } from './state.js';

const L = (path: string, hash: string, mtimeMs = 1): LocalFile => ({
  path,
  name: path.slice(1),
  size: hash.length,
  mtimeMs,
  hash,
});
const R = (path: string, hash: string, seq: number): RemoteFile => ({
  path,
  seq,
  hash,
  size: hash.length,
});
const B = (hash: string, seq: number, mtimeMs = 1): FileState => ({
  seq,
  hash,
  size: hash.length,
  mtimeMs,
});

function run(
  local: LocalFile[],
  remote: RemoteFile[],
  base: Record<string, FileState>,
  extra: Partial<Parameters<typeof plan>[0]> = {},
) {
  return plan({
    mode: 'two-way-safe',
    local: new Map(local.map((f) => [f.path, f])),
    remote: new Map(remote.map((f) => [f.path, f])),
    base: new Map(Object.entries(base)),
    reset: false,
    maxDeleteShare: 0.5,
    force: false,
    ...extra,
  });
}

const kinds = (p: ReturnType<typeof plan>) => p.actions.map((a) => `${a.kind} ${a.path}`);

describe('plan (two-way-safe)', () => {
  it('does nothing when all three agree, and records a pair that agrees with a stale base', () => {
    expect(run([L('/a', 'x')], [R('/a', 'x', 3)], { '/a': B('x', 3) }).actions).toEqual([]);
    expect(kinds(run([L('/a', 'x', 9)], [R('/a', 'x', 4)], { '/a': B('x', 3) }))).toEqual([
      'record /a',
    ]);
  });

  it('sends a one-sided change across, conditionally on the seq it saw', () => {
    const up = run([L('/a', 'new')], [R('/a', 'old', 3)], { '/a': B('old', 3) });
    expect(up.actions).toEqual([
      expect.objectContaining({ kind: 'upload', path: '/a', ifMatch: 3 }),
    ]);
    const created = run([L('/n', 'new')], [], {});
    expect(created.actions).toEqual([expect.objectContaining({ kind: 'upload', ifMatch: null })]);
    const down = run([L('/a', 'old')], [R('/a', 'new', 5)], { '/a': B('old', 3) });
    expect(down.actions).toEqual([
      expect.objectContaining({
        kind: 'download',
        expect: expect.objectContaining({ hash: 'old' }),
      }),
    ]);
  });

  it('propagates deletions from either side, and forgets paths gone on both', () => {
    const base = { '/a': B('x', 3), '/b': B('y', 4), '/c': B('z', 5), '/d': B('w', 6) };
    const p = run(
      [L('/b', 'y'), L('/c', 'z'), L('/d', 'w')],
      [R('/a', 'x', 3), R('/c', 'z', 5), R('/d', 'w', 6)],
      { ...base, '/e': B('v', 7) },
    );
    expect(kinds(p)).toEqual(['delete-remote /a', 'delete-local /b', 'forget /e']);
  });

  it('reports a conflict when both sides changed differently, not when they made the same change', () => {
    const conflict = run([L('/a', 'ours')], [R('/a', 'theirs', 7)], { '/a': B('base', 3) });
    expect(conflict.actions).toEqual([
      expect.objectContaining({ kind: 'conflict', path: '/a', base: B('base', 3) }),
    ]);
    const same = run([L('/a', 'same')], [R('/a', 'same', 7)], { '/a': B('base', 3) });
    expect(kinds(same)).toEqual(['record /a']);
    const fresh = run([L('/a', 'ours')], [R('/a', 'theirs', 7)], {});
    expect(fresh.actions).toEqual([expect.objectContaining({ kind: 'conflict', base: null })]);
  });

  it('lets a modification beat a deletion on either side', () => {
    const p = run([L('/mine', 'edited')], [R('/theirs', 'edited', 9)], {
      '/mine': B('base', 3),
      '/theirs': B('base', 4),
    });
    expect(kinds(p)).toEqual(['upload /mine', 'download /theirs']);
    expect(p.actions[0]).toMatchObject({ ifMatch: null });
  });
});

describe('plan modes', () => {
  it('push never writes into the tree', () => {
    const p = run(
      [L('/a', 'mine'), L('/b', 'same')],
      [R('/a', 'theirs', 7), R('/b', 'moved-on', 8), R('/c', 'only-there', 9)],
      { '/a': B('base', 3), '/b': B('same', 4) },
      { mode: 'push' },
    );
    expect(kinds(p)).toEqual(['upload /a', 'upload /b']);
  });

  it('pull never writes to the workspace and leaves files the workspace never had', () => {
    const p = run(
      [L('/a', 'mine'), L('/local-only', 'x')],
      [R('/a', 'theirs', 7), R('/b', 'new', 8)],
      { '/a': B('base', 3) },
      { mode: 'pull' },
    );
    expect(kinds(p)).toEqual(['download /a', 'download /b']);
    expect(p.kept).toEqual(['/local-only']);
  });
});

describe('symbolic links in the tree', () => {
  it('leaves every path at or beneath a link alone on both sides, and lists it as held', () => {
    const p = run(
      [],
      [
        R('/link', 'file-there', 2),
        R('/link/new', 'planted', 3),
        R('/link/gone', 'g', 4),
        R('/a/b/x', 'nested', 5),
        R('/a/c', 'plain', 6),
        R('/linked.txt', 'sibling', 7),
      ],
      { '/link/gone': B('g', 4), '/link/dropped': B('d', 1) },
      { links: new Set(['/link', '/a/b']) },
    );
    expect(kinds(p)).toEqual(['download /a/c', 'download /linked.txt']);
    expect(p.held.map((h) => h.path)).toEqual([
      '/a/b/x',
      '/link',
      '/link/dropped',
      '/link/gone',
      '/link/new',
    ]);
    expect(p.held[0]).toEqual({
      path: '/a/b/x',
      reason: 'symlink',
      detail: 'beneath /a/b, a symbolic link in the tree: left alone on both sides',
    });
    expect(p).toMatchObject({ deletes: 0, stopped: null });
  });
});

describe('resets and the mass-deletion guard', () => {
  it('detects a fresh or reset tree', () => {
    expect(isReset({ stateFound: false, knownFiles: 0, treeExists: true, treeFiles: 3 })).toBe(
      true,
    );
    expect(isReset({ stateFound: true, knownFiles: 5, treeExists: true, treeFiles: 0 })).toBe(true);
    expect(isReset({ stateFound: true, knownFiles: 5, treeExists: false, treeFiles: 0 })).toBe(
      true,
    );
    expect(isReset({ stateFound: true, knownFiles: 5, treeExists: true, treeFiles: 1 })).toBe(
      false,
    );
    expect(isReset({ stateFound: true, knownFiles: 0, treeExists: true, treeFiles: 0 })).toBe(
      false,
    );
  });

  it('restores everything on a reset and deletes nothing', () => {
    const base = { '/a': B('x', 3), '/b': B('y', 4) };
    const p = run([], [R('/a', 'x', 3), R('/b', 'y', 4)], base, { reset: true });
    expect(kinds(p)).toEqual(['download /a', 'download /b']);
    expect(p.deletes).toBe(0);
  });

  it('stops a plan deleting more than the allowed share, unless forced', () => {
    const base = Object.fromEntries(['/1', '/2', '/3', '/4'].map((p, i) => [p, B(`h${p}`, i + 1)]));
    const remote = Object.entries(base).map(([p, b]) => R(p, b.hash, b.seq));
    const local = [L('/4', 'h/4')];
    const stopped = run(local, remote, base);
    expect(stopped).toMatchObject({ stopped: 'mass_delete', deletes: 3, known: 4, actions: [] });
    const forced = run(local, remote, base, { force: true });
    expect(forced.stopped).toBeNull();
    expect(forced.actions).toHaveLength(3);
    expect(run([L('/2', 'h/2'), L('/3', 'h/3'), L('/4', 'h/4')], remote, base).stopped).toBeNull();
  });
});

describe('conflictPath', () => {
  const t = Date.UTC(2026, 11, 2, 17, 30, 0);
  it('puts label and compact UTC time before the extension', () => {
    expect(conflictPath('/d/report.md', 'sbx-1', t)).toBe(
      '/d/report.conflict-sbx-1-20261202T173000Z.md',
    );
    expect(conflictPath('/Makefile', 'a b/c', t)).toBe('/Makefile.conflict-a-b-c-20261202T173000Z');
    expect(conflictPath('/.env', 'x', t)).toBe('/.env.conflict-x-20261202T173000Z');
    const taken = new Set(['/a.conflict-x-20261202T173000Z.txt']);
    expect(conflictPath('/a.txt', 'x', t, (p) => taken.has(p))).toBe(
      '/a.conflict-x-20261202T173000Z-2.txt',
    );
  });
});
