/**
 * The folder graph of core has no cycles: a top-level folder under src/ is a node (files directly
 * in src/ are the node "root"), and every relative import of a non-test file is an edge. The
 * kernel sits below every domain folder; a cycle means a low-level module reaches up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function folderOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length === 1 ? 'root' : (parts[0] ?? 'root');
}

/** Relative specifiers of `import … from`, `export … from` and `import('…')`. */
function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)) {
    if (match[1]) found.push(match[1]);
  }
  return found;
}

export function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const to = folderOf(resolve(dirname(file), spec));
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/** One cycle of the graph as a path `a -> b -> a`, or null when there is none. */
function findCycle(graph: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    if (state.get(node) === undefined) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return null;
}

describe('architecture', () => {
  it('has no import cycles between the folders of core', () => {
    const cycle = findCycle(folderGraph());
    expect(cycle?.join(' -> ') ?? 'no cycle').toBe('no cycle');
  });

  it('keeps SQL inside store/: no other non-test file imports Kysely or the test escape hatch', () => {
    const leaks = sourceFiles(SRC)
      .filter((file) => !['store', 'test-support'].includes(folderOf(file)))
      .filter((file) => {
        const text = readFileSync(file, 'utf8');
        return (
          /from\s+['"]kysely['"]/.test(text) ||
          /['"][^'"]*store\/metadata\/testing\.js['"]/.test(text)
        );
      })
      .map((file) => relative(SRC, file));
    expect(leaks).toEqual([]);
  });
});
