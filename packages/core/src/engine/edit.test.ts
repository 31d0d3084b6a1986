import { describe, expect, it } from 'vitest';
import { catFile, openTemp } from '../test-support/temp.js';
import { applyEdits } from './edit.js';

describe('applyEdits', () => {
  it('applies edits in order, each to the previous result', () => {
    const result = applyEdits('a b c', [
      { oldText: 'a', newText: 'x' },
      { oldText: 'x b', newText: 'y' },
    ]);
    expect(result).toEqual({ text: 'y c', replacements: 2 });
  });

  it('names the edit that matches nothing', () => {
    expect(() =>
      applyEdits('abc', [
        { oldText: 'a', newText: 'z' },
        { oldText: 'q', newText: '' },
      ]),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        data: { edit: 2, matches: 0, candidates: [] },
      }),
    );
  });

  it('shows the lines nearest to an oldText that matches nothing', () => {
    const text = 'const alpha = 1;\nconst beta = 2;\nreturn alpha;\n';
    expect(() => applyEdits(text, [{ oldText: 'const alpah = 1;\n', newText: '' }])).toThrow(
      expect.objectContaining({
        data: expect.objectContaining({
          candidates: [expect.objectContaining({ line: 1, text: 'const alpha = 1;' })],
        }),
      }),
    );
  });

  it('names how many places and which lines an ambiguous edit matches', () => {
    const text = 'x = 1\ny = 2\nx = 3\n';
    expect(() => applyEdits(text, [{ oldText: 'x =', newText: 'z =' }])).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        data: {
          edit: 1,
          matches: 2,
          lines: [1, 3],
          candidates: [
            { line: 1, text: 'x = 1', similarity: 1 },
            { line: 3, text: 'x = 3', similarity: 1 },
          ],
        },
        message: expect.stringContaining('matches 2 places (lines 1, 3)'),
      }),
    );
    expect(applyEdits(text, [{ oldText: 'x =', newText: 'z =', replaceAll: true }])).toEqual({
      text: 'z = 1\ny = 2\nz = 3\n',
      replacements: 2,
    });
    expect(applyEdits(text, [{ oldText: 'x =', newText: 'z =' }], true).replacements).toBe(2);
  });

  it('treats replacement text literally ($& and friends)', () => {
    expect(applyEdits('price', [{ oldText: 'price', newText: '$& $1 $$' }]).text).toBe('$& $1 $$');
  });
});

describe('editFile', () => {
  it('writes a new version and returns the diff', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/e.md', 'hello world\r\nbye\r\n');
    const result = await satchel.editFile('ws', '/e.md', [{ oldText: 'world', newText: 'there' }]);
    expect(result.dryRun).toBe(false);
    expect(result.diff).toContain('-hello world');
    expect(result.diff).toContain('+hello there');
    expect((await catFile(satchel, '/e.md')).toString()).toBe('hello there\r\nbye\r\n');
    const [head] = (await satchel.listVersions('ws', '/e.md')).items;
    expect(head?.op).toBe('edit');
  });

  it('dry run changes nothing', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/e.md', 'abc');
    const result = await satchel.editFile('ws', '/e.md', [{ oldText: 'b', newText: 'B' }], {
      dryRun: true,
    });
    expect(result).toMatchObject({ dryRun: true, info: { seq: v1.seq } });
    expect(result.diff).toContain('+aBc');
    expect((await catFile(satchel, '/e.md')).toString()).toBe('abc');
    expect((await satchel.getWorkspace('ws')).seq).toBe(v1.seq);
  });

  it('fails without writing when an edit does not apply, a version is stale, or the file is binary', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/e.md', 'abc');
    await expect(
      satchel.editFile('ws', '/e.md', [
        { oldText: 'a', newText: 'A' },
        { oldText: 'zzz', newText: '' },
      ]),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', data: { edit: 2 } });
    await satchel.writeFile('ws', '/e.md', 'abcd');
    await expect(
      satchel.editFile('ws', '/e.md', [{ oldText: 'a', newText: 'A' }], { ifMatch: v1.seq }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect((await catFile(satchel, '/e.md')).toString()).toBe('abcd');
    await satchel.writeFile('ws', '/b.bin', Buffer.from([97, 0, 98]));
    await expect(
      satchel.editFile('ws', '/b.bin', [{ oldText: 'a', newText: 'b' }]),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(satchel.editFile('ws', '/e.md', [])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(
      satchel.editFile('ws', '/e.md', [{ oldText: '', newText: 'x' }]),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(
      satchel.editFile('ws', '/none', [{ oldText: 'a', newText: 'b' }]),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('concurrent edits of different parts both land', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/e.txt', 'alpha\nbeta\n');
    await Promise.all([
      satchel.editFile('ws', '/e.txt', [{ oldText: 'alpha', newText: 'ALPHA' }]),
      satchel.editFile('ws', '/e.txt', [{ oldText: 'beta', newText: 'BETA' }]),
    ]);
    expect((await catFile(satchel, '/e.txt')).toString()).toBe('ALPHA\nBETA\n');
  });
});
