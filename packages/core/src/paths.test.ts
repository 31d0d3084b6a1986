import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isSatchelError } from '@satchel/client/errors.js';
import {
  ancestorsOf,
  descendantRange,
  normalizePath,
  parentOf,
  validateWorkspaceName,
} from '@satchel/client/paths.js';
import { describe, expect, it } from 'vitest';
import { openTemp } from './test-support/temp.js';

function reason(input: unknown): string {
  try {
    normalizePath(input);
  } catch (error) {
    if (isSatchelError(error, 'INVALID_PATH')) return String(error.data.reason);
    throw error;
  }
  return 'accepted';
}

const ATTACKS: Array<[string, string]> = [
  ['/a/../../x', '".." segment'],
  ['../x', 'relative ".."'],
  ['/..', 'bare ".."'],
  ['/a/./b', '"." segment'],
  ['/a/\uff0e\uff0e/b', 'fullwidth dots'],
  ['/a/\u2025/b', 'two-dot leader'],
  ['/a/\u2024/b', 'one-dot leader'],
  ['/a\u0000b', 'NUL'],
  ['/a\\..\\b', 'backslash traversal'],
  ['/a\\b', 'backslash'],
  ['/a//b', 'empty segment'],
  ['//etc/passwd', 'leading empty segment'],
  ['/a\nb', 'newline'],
  ['/a\u001bb', 'escape'],
  ['/a\u007fb', 'DEL'],
  ['/a\u0085b', 'C1 control'],
  ['/a\ud800b', 'lone surrogate'],
  [`/${'x'.repeat(256)}`, 'segment of 256 bytes'],
  [`/${'é'.repeat(128)}`, 'segment of 256 UTF-8 bytes'],
  [`/${Array.from({ length: 20 }, () => 'y'.repeat(250)).join('/')}`, 'path over 4096 bytes'],
  ['', 'empty'],
];

describe('normalizePath', () => {
  it.each(ATTACKS)('refuses %j (%s) with INVALID_PATH', (input) => {
    expect(reason(input)).not.toBe('accepted');
  });

  it.each([
    ['\u202e', 'right-to-left override'],
    ['\u202a', 'left-to-right embedding'],
    ['\u2066', 'left-to-right isolate'],
    ['\u2069', 'pop directional isolate'],
    ['\u200e', 'left-to-right mark'],
    ['\u200f', 'right-to-left mark'],
  ])('refuses the bidi control %j (%s), which disguises a name, with INVALID_PATH', (bidi) => {
    // "/invoice\u202Efdp.exe" displays as "/invoiceexe.pdf".
    expect(reason(`/invoice${bidi}fdp.exe`)).toMatch(/bidirectional/);
  });

  it('refuses bidi controls in workspace names with INVALID_INPUT', () => {
    expect(() => validateWorkspaceName('ws\u202egnp')).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });

  it('refuses non-strings', () => {
    expect(reason(42)).toMatch(/string/);
    expect(reason(null)).toMatch(/string/);
  });

  it('keeps percent escapes literal', () => {
    expect(normalizePath('/a/%2e%2e/b')).toBe('/a/%2e%2e/b');
  });

  it('accepts names that merely contain dots', () => {
    expect(normalizePath('/a/...')).toBe('/a/...');
    expect(normalizePath('/.hidden/..x')).toBe('/.hidden/..x');
  });

  it('canonicalises: leading slash added, one trailing slash dropped, NFC', () => {
    expect(normalizePath('reports/q3.md')).toBe('/reports/q3.md');
    expect(normalizePath('/reports/')).toBe('/reports');
    expect(normalizePath('/')).toBe('/');
    expect(normalizePath('/cafe\u0301')).toBe('/caf\u00e9');
  });

  it('accepts a segment of exactly 255 bytes and a path of exactly 4096 bytes', () => {
    expect(normalizePath(`/${'x'.repeat(255)}`)).toHaveLength(256);
    const path = `/${Array.from({ length: 16 }, () => 'z'.repeat(255)).join('/')}`;
    expect(Buffer.byteLength(path)).toBe(4096);
    expect(normalizePath(path)).toBe(path);
  });

  it('names the rule that failed', () => {
    expect(reason('/a//b')).toMatch(/empty segment/);
    expect(reason('/a/../b')).toMatch(/"\.\."/);
    expect(reason('/a\\b')).toMatch(/backslash/);
  });
});

describe('path helpers', () => {
  it('parentOf and ancestorsOf', () => {
    expect(parentOf('/a/b/c')).toBe('/a/b');
    expect(parentOf('/a')).toBe('/');
    expect(ancestorsOf('/a/b/c')).toEqual(['/a', '/a/b']);
  });

  it('descendantRange brackets exactly the subtree under byte order', () => {
    const { lo, hi } = descendantRange('/a');
    const inside = (p: string) =>
      Buffer.compare(Buffer.from(p), Buffer.from(lo)) >= 0 &&
      Buffer.compare(Buffer.from(p), Buffer.from(hi)) < 0;
    expect(['/a/b', '/a/\u00e9', '/a/b/c'].every(inside)).toBe(true);
    expect(['/a', '/a-b', '/a.b', '/a0', '/b'].some(inside)).toBe(false);
  });

  it('validates workspace names', () => {
    expect(validateWorkspaceName('my-ws.1')).toBe('my-ws.1');
    for (const bad of ['', 'Caps', '-x', 'a/b', '..', 'x'.repeat(64)]) {
      expect(() => validateWorkspaceName(bad)).toThrow(/invalid workspace name/);
    }
  });
});

describe('path attacks against the engine', () => {
  it('every entry point refuses them and nothing outside the data directory is touched', async () => {
    const { satchel, data } = await openTemp();
    const parent = dirname(data);
    const before = await readdir(parent);
    const ops = (p: string) => [
      () => satchel.writeFile('ws', p, 'x'),
      () => satchel.readFile('ws', p),
      () => satchel.stat('ws', p),
      () => satchel.mkdir('ws', p),
      () => satchel.remove('ws', p),
      () => satchel.move('ws', p, '/ok'),
      () => satchel.copy('ws', '/ok', p),
      () => satchel.appendFile('ws', p, 'x'),
      () => satchel.list('ws', { path: p }),
      () => satchel.listVersions('ws', p),
    ];
    await satchel.writeFile('ws', '/ok', 'fine');
    for (const [attack] of ATTACKS.filter(([a]) => a !== '')) {
      for (const op of ops(attack)) {
        await expect(op()).rejects.toMatchObject({ code: 'INVALID_PATH' });
      }
    }
    expect(await readdir(parent)).toEqual(before);
    const listing = await satchel.list('ws', { recursive: true });
    expect(listing.items.map((i) => i.path)).toEqual(['/ok']);
  });
});
