/**
 * The client stays light: its modules import only zod, picomatch, ignore, tar-stream (plain
 * JavaScript, the batch transfer's archive format) and Node's built-ins —
 * never the engine, a native module or the CodeSandbox SDK — and chokidar only where a tree is
 * watched (a dynamic import), so a sandbox agent or a browser bundle can load it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));
const ALLOWED = new Set(['zod', 'picomatch', 'ignore', 'tar-stream']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('@satchel/client', () => {
  it('imports only its light dependencies and Node built-ins; chokidar only on demand', () => {
    const offending: string[] = [];
    for (const file of sources(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/^(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)) {
        const specifier = match[1] ?? '';
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        if (!ALLOWED.has(specifier)) offending.push(`${relative(SRC, file)}: ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
    const dynamic = sources(SRC).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
        (m) => m[1],
      ),
    );
    expect(dynamic).toEqual(['chokidar']);
  });

  it('declares no native or engine dependency', () => {
    const pkg = JSON.parse(readFileSync(join(SRC, '..', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies).sort()).toEqual([
      'chokidar',
      'ignore',
      'picomatch',
      'tar-stream',
      'zod',
    ]);
  });
});
