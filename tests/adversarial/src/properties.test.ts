/**
 * Property-based fuzzing (fast-check) of the two pure functions every path and every sync
 * decision goes through: `normalizePath` and the sync planner `plan`. Runs are bounded
 * (200 per property) so the suite stays fast; a failure prints its seed and shrunk input.
 */

import { posix } from 'node:path';
import {
  type LocalFile,
  normalizePath,
  plan,
  type RemoteFile,
  SatchelError,
  type SyncAction,
} from '@satchel/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const RUNS = { numRuns: 200 };

// biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const BIDI = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Characters an attacker likes: separators, dots, controls, bidi, look-alikes, combining marks. */
const nasty = fc.constantFrom(
  '/',
  '.',
  '..',
  '\\',
  '\u0000',
  '\u0007',
  '\u0085',
  '\u202e',
  '\u2066',
  '\u200f',
  '\uff0e',
  '\u2024',
  'e\u0301',
  '\u00e9',
  '%2e',
  '%2f',
  '\ud800',
  ' ',
  'a',
  'b',
);
const rawPath = fc.oneof(
  fc.array(nasty, { maxLength: 12 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.string({ maxLength: 8 }), { maxLength: 6 }).map((s) => `/${s.join('/')}`),
);

/** The result, or the error code when it throws (anything but INVALID_PATH is a bug). */
function attempt(input: string): { path: string } | { code: string } {
  try {
    return { path: normalizePath(input) };
  } catch (error) {
    return { code: error instanceof SatchelError ? error.code : `thrown: ${String(error)}` };
  }
}

describe('normalizePath', () => {
  it('returns a canonical, absolute, clean path or throws INVALID_PATH, nothing else', () => {
    fc.assert(
      fc.property(rawPath, (input) => {
        const result = attempt(input);
        if ('code' in result) {
          expect(result.code).toBe('INVALID_PATH');
          return;
        }
        const path = result.path;
        expect(path.startsWith('/')).toBe(true);
        expect(path).toBe(path.normalize('NFC'));
        const segments = path === '/' ? [] : path.slice(1).split('/');
        for (const segment of segments) {
          expect(segment).not.toBe('');
          expect(segment).not.toBe('.');
          expect(segment).not.toBe('..');
        }
        expect(CONTROL.test(path)).toBe(false);
        expect(BIDI.test(path)).toBe(false);
        expect(path.includes('\\')).toBe(false);
        // Idempotent: a normalised path is its own normal form.
        expect(normalizePath(path)).toBe(path);
        // Never escapes the root: resolved below any folder, it stays below that folder.
        expect(posix.resolve('/', path)).toBe(path);
        expect(posix.join('/srv/data', path).startsWith('/srv/data/')).toBe(true);
      }),
      RUNS,
    );
  });
});

/** Small pools, so that paths and hashes collide and every branch of the planner is hit. */
const PATHS = ['/a', '/b/c', '/b/d', '/é', '/x/y/z'];
const HASHES = ['h1', 'h2', 'h3'];
const fileOf = fc.record({ hash: fc.constantFrom(...HASHES), seq: fc.integer({ min: 1, max: 9 }) });
const sideOf = fc.dictionary(fc.constantFrom(...PATHS), fileOf, { maxKeys: PATHS.length });

const planInput = fc.record({
  mode: fc.constantFrom('two-way-safe', 'push', 'pull') as fc.Arbitrary<
    'two-way-safe' | 'push' | 'pull'
  >,
  local: sideOf,
  remote: sideOf,
  base: sideOf,
  reset: fc.boolean(),
  links: fc.subarray(['/b', '/x/y', '/a']),
  force: fc.boolean(),
});

type Input = typeof planInput extends fc.Arbitrary<infer T> ? T : never;

function build(input: Input) {
  const local = new Map<string, LocalFile>();
  for (const [path, f] of Object.entries(input.local)) {
    local.set(path, { path, name: path.slice(1), size: 1, mtimeMs: 1, hash: f.hash });
  }
  const remote = new Map<string, RemoteFile>();
  for (const [path, f] of Object.entries(input.remote)) {
    remote.set(path, { path, seq: f.seq, hash: f.hash, size: 1 });
  }
  const base = new Map(
    Object.entries(input.base).map(([path, f]) => [
      path,
      { seq: f.seq, hash: f.hash, size: 1, mtimeMs: 1 },
    ]),
  );
  return { local, remote, base };
}

const beneath = (path: string, link: string) => path === link || path.startsWith(`${link}/`);

describe('the sync planner', () => {
  it('plans only paths inside the tree, once each, and never on a path beneath a link', () => {
    fc.assert(
      fc.property(planInput, (input) => {
        const { local, remote, base } = build(input);
        const result = plan({
          ...input,
          local,
          remote,
          base,
          links: new Set(input.links),
          maxDeleteShare: 0.5,
        });
        const seen = new Set<string>();
        for (const action of result.actions) {
          expect(normalizePath(action.path)).toBe(action.path);
          expect(action.path.split('/')).not.toContain('..');
          expect(seen.has(action.path)).toBe(false);
          seen.add(action.path);
          expect(input.links.some((link) => beneath(action.path, link))).toBe(false);
        }
        if (result.stopped) expect(result.actions).toEqual([]);
      }),
      RUNS,
    );
  });

  it('deletes a side only when the other side deleted it and it is unchanged since the base', () => {
    fc.assert(
      fc.property(planInput, (input) => {
        const { local, remote, base } = build(input);
        const links = new Set(input.links);
        const result = plan({
          ...input,
          local,
          remote,
          base,
          links,
          maxDeleteShare: 1,
          force: true,
        });
        for (const action of result.actions) {
          const b = base.get(action.path);
          if (action.kind === 'delete-remote') {
            // The tree deleted it, and the workspace still holds exactly the synced content.
            expect(input.reset).toBe(false);
            expect(local.has(action.path)).toBe(false);
            expect(b?.hash).toBe(remote.get(action.path)?.hash);
            expect(input.mode).not.toBe('pull');
          }
          if (action.kind === 'delete-local') {
            expect(input.reset).toBe(false);
            expect(remote.has(action.path)).toBe(false);
            expect(b?.hash).toBe(local.get(action.path)?.hash);
            expect(input.mode).not.toBe('push');
          }
        }
      }),
      RUNS,
    );
  });

  it('in two-way-safe mode, never overwrites a change it has not seen on either side', () => {
    fc.assert(
      fc.property(planInput, (input) => {
        const { local, remote, base } = build(input);
        const result = plan({
          ...input,
          mode: 'two-way-safe',
          local,
          remote,
          base,
          links: new Set(input.links),
          maxDeleteShare: 1,
          force: true,
        });
        const effectiveBase = input.reset ? new Map() : base;
        for (const action of result.actions as SyncAction[]) {
          const b = effectiveBase.get(action.path);
          const r = remote.get(action.path);
          const l = local.get(action.path);
          if (action.kind === 'upload') {
            // Conditional on the head it saw; replaces only a workspace file unchanged since base.
            expect(action.ifMatch).toBe(r?.seq ?? null);
            if (r !== undefined) expect(r.hash).toBe(b?.hash);
          }
          if (action.kind === 'download') {
            // Replaces only a tree file unchanged since base, and says which one it expects.
            expect(action.expect?.hash).toBe(l?.hash);
            if (l !== undefined) expect(l.hash).toBe(b?.hash);
          }
        }
      }),
      RUNS,
    );
  });
});
