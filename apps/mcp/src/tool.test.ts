/** defineTool: what a tool declares about writing follows the operation it names. */
import { describe, expect, it } from 'vitest';
import { defineTool, type WriteHints } from './tool.js';

const tool = (operation: 'stat' | 'writeFile', hints?: WriteHints) =>
  defineTool({
    name: 'probe',
    title: 'Probe',
    description: 'a tool for this test',
    operation,
    ...(hints === undefined ? {} : { hints }),
    input: {},
    output: {},
    run: async () => ({ structured: {}, text: '' }),
  });

describe('defineTool', () => {
  it('writes exactly when its operation mutates', () => {
    expect(tool('stat').writes).toBe(false);
    expect(tool('writeFile', { destructive: true, idempotent: true }).writes).toBe(true);
  });

  it('refuses a write tool without hints and a read tool with them', () => {
    expect(() => tool('writeFile')).toThrow(/hints/);
    expect(() => tool('stat', { destructive: false, idempotent: true })).toThrow(/hints/);
  });
});
