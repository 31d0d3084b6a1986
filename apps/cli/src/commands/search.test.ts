/** `satchel grep`, `search`, `ask` and `ws set --indexing` on a real data directory (or server). */

import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestCli } from '../testing.js';

let cli: TestCli;
beforeEach(async () => {
  cli = await TestCli.create();
  await cli.run(['ws', 'create', 'demo']);
  await cli.in('demo', ['put', '-', '/notes/run.md'], {
    stdin: '# Run 7\n\nThe run concluded: use the blue config.\n',
  });
  await cli.in('demo', ['put', '-', '/src/app.ts'], { stdin: 'const config = 1;\nexport {};\n' });
});
afterEach(async () => {
  await cli.dispose();
});

describe('satchel grep', () => {
  it('prints path:line:text, with regex, case and glob options', async () => {
    const plain = await cli.in('demo', ['grep', 'config']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(
      '/notes/run.md:3:The run concluded: use the blue config.\n/src/app.ts:1:const config = 1;\n',
    );
    const regex = await cli.in('demo', ['grep', '-E', '-i', '^THE RUN', '/notes']);
    expect(regex.stdout).toBe('/notes/run.md:3:The run concluded: use the blue config.\n');
    const glob = await cli.in('demo', ['grep', 'config', '--glob', '**/*.ts', '--json']);
    expect(JSON.parse(glob.stdout)).toMatchObject({ hits: [{ path: '/src/app.ts', line: 1 }] });
    const none = await cli.in('demo', ['grep', 'absent']);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'no matches\n' });
  });

  it('greps and searches the files as they were with --at', async () => {
    await cli.in('demo', ['snapshot', 'create', 'before']);
    await cli.in('demo', ['put', '-', '/notes/run.md'], { stdin: '# Run 8\n\nUse the red one.\n' });
    expect((await cli.in('demo', ['grep', 'blue'])).stdout).toBe('');
    const then = await cli.in('demo', ['grep', 'blue', '--at', 'before']);
    expect(then.stdout).toBe('/notes/run.md:3:The run concluded: use the blue config.\n');
    const search = await cli.in('demo', ['search', 'blue', 'config', '--at', 'before', '--json']);
    const found = JSON.parse(search.stdout);
    expect(found.mode).toBe('scan');
    expect(found.items[0].citation).toMatchObject({ path: '/notes/run.md', seq: 1 });
    expect(found.items[0].text).toContain('blue config');
  });

  it('fails with one line on a pattern RE2 cannot run', async () => {
    const bad = await cli.in('demo', ['grep', '-E', '(a)\\1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toContain('invalid pattern');
    expect(bad.stdout).toBe('');
  });
});

describe('satchel search', () => {
  it('prints citations and snippets, and JSON', async () => {
    const out = await cli.in('demo', ['search', 'concluded', 'config']);
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n').slice(0, 2)).toEqual([
      '/notes/run.md@1:1-3',
      '    # Run 7 The run «concluded»: use the blue «config».',
    ]);
    const json = await cli.in('demo', ['search', 'config', '--path', '/src', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      mode: 'bm25',
      items: [{ citation: { path: '/src/app.ts', seq: 2, lineStart: 1, lineEnd: 2 } }],
    });
    const missing = await cli.in('demo', ['search']);
    expect(missing.code).toBe(2);
  });

  it('shows the status, reindexes, and follows ws set --indexing', async () => {
    const status = await cli.in('demo', ['search', '--status']);
    expect(status.stdout).toMatch(/indexing\s+on\n/);
    expect(status.stdout).toMatch(/vectors\s+off \(no embedding provider\)/);
    const reindexed = await cli.in('demo', ['search', '--reindex', '--json']);
    expect(JSON.parse(reindexed.stdout)).toMatchObject({ files: 2, lag: 0 });

    const off = await cli.run(['ws', 'set', 'demo', '--indexing', 'off']);
    expect(off.stdout).toBe(
      'workspace demo: indexing off, quotas: bytes none, history none, files none\n',
    );
    expect((await cli.run(['ws', 'info', 'demo'])).stdout).toMatch(/indexing\s+off\n/);
    const refused = await cli.in('demo', ['search', 'config']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('search indexing is off');
    expect((await cli.run(['ws', 'set', 'demo', '--indexing', 'maybe'])).code).toBe(2);
    await cli.run(['ws', 'set', 'demo', '--indexing', 'on']);
    expect((await cli.in('demo', ['search', 'config'])).code).toBe(0);
  });
});

describe('satchel ask', () => {
  it('prints the passages and a note without a model', async () => {
    const out = await cli.in('demo', ['ask', 'what', 'did', 'the', 'run', 'conclude?']);
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n')[0]).toBe('[1] /notes/run.md@1:1-3');
    expect(out.stderr).toBe('note: no language model is configured\n');
  });

  it('answers with citations through SATCHEL_LLM_URL', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/json');
        const content = 'Use the blue config [1] [4].';
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const env = { SATCHEL_LLM_URL: url, SATCHEL_LLM_MODEL: 'stand-in' };
      const local = ['--data', cli.data];
      const out = await cli.in('demo', ['ask', 'what did the run conclude?', ...local], { env });
      expect(out.stdout).toBe('Use the blue config [1].\n\n[1] /notes/run.md@1:1-3\n');
      const noModel = await cli.in('demo', ['ask', 'x', ...local], {
        env: { SATCHEL_LLM_URL: url },
      });
      expect(noModel.code).toBe(2);
      expect(noModel.stderr).toContain('SATCHEL_LLM_MODEL');
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
