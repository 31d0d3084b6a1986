/** Path attacks through every path-taking tool: INVALID_PATH, and nothing in the workspace changes. */
import { describe, expect, it } from 'vitest';
import { call, connect, errorOf, ok, openEngine } from './test-support/client.js';

const ATTACKS = [
  '../x',
  '/a/../../b',
  '%2e%2e/x',
  '/a/%2E%2e/b',
  'a\u0000b',
  'a\\..\\b',
  `/${'a'.repeat(300)}`,
  `/${Array.from({ length: 30 }, () => 'b'.repeat(200)).join('/')}`,
];

/** Each tool with the arguments that put `path` where it takes a path. */
const CALLS: Array<[string, (path: string) => Record<string, unknown>]> = [
  ['read_text_file', (path) => ({ path })],
  ['read_media_file', (path) => ({ path })],
  ['get_file_info', (path) => ({ path })],
  ['write_file', (path) => ({ path, content: 'x' })],
  ['append_file', (path) => ({ path, content: 'x' })],
  ['edit_file', (path) => ({ path, edits: [{ oldText: 'seed', newText: 'x' }] })],
  ['delete_file', (path) => ({ path, recursive: true })],
  ['create_directory', (path) => ({ path })],
  ['list_directory', (path) => ({ path })],
  ['list_directory_with_sizes', (path) => ({ path })],
  ['directory_tree', (path) => ({ path })],
  ['search_files', (path) => ({ path, pattern: '**' })],
  ['move_file', (path) => ({ source: '/seed.md', destination: path })],
  ['move_file', (path) => ({ source: path, destination: '/moved.md' })],
  ['copy_file', (path) => ({ source: '/seed.md', destination: path })],
  ['copy_file', (path) => ({ source: path, destination: '/copied.md' })],
  ['list_versions', (path) => ({ path })],
  ['diff_versions', (path) => ({ path })],
  ['restore_version', (path) => ({ path, version: 1 })],
  ['get_changes', (path) => ({ path })],
  ['lock_file', (path) => ({ path })],
  ['list_locks', (path) => ({ path })],
  ['create_upload_url', (path) => ({ path })],
  ['create_download_url', (path) => ({ path })],
];

describe('path attacks', () => {
  it('are refused with INVALID_PATH by every path-taking tool, writing nothing', async () => {
    const engine = await openEngine();
    await engine.writeFile('ws', '/seed.md', 'seed');
    const before = await engine.getWorkspace('ws');
    const client = await connect(engine);
    for (const attack of ATTACKS) {
      for (const [tool, args] of CALLS) {
        const result = await call(client, tool, args(attack));
        expect(result.isError, `${tool} ${JSON.stringify(attack)}`).toBe(true);
        expect(errorOf(result), `${tool} ${JSON.stringify(attack)}`).toMatchObject({
          code: 'INVALID_PATH',
        });
      }
      const multi = await ok<{ files: Array<{ error: { code: string } | null }> }>(
        client,
        'read_multiple_files',
        { paths: [attack] },
      );
      expect(multi.files[0]?.error?.code).toBe('INVALID_PATH');
    }
    const after = await engine.getWorkspace('ws');
    expect(after.seq).toBe(before.seq);
    expect((await engine.list('ws', { recursive: true })).items.map((i) => i.path)).toEqual([
      '/seed.md',
    ]);
    expect(await engine.listLocks('ws')).toEqual([]);
  });
});
