/**
 * CPU profile of `satchel mcp` (the built CLI) over stdio during one tool's loop:
 * `npx tsx bench/profile.ts read|write [calls] [outDir]`. Seeds 100 files of BENCH_BYTES (4096),
 * warms up, runs the calls, and leaves the server's .cpuprofile in outDir (default .bench-prof).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openSatchel } from '@satchel/core';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = join(HERE, '..', '..', 'cli', 'dist', 'main.js');
const [what = 'read', callsArg = '2000', outArg = join(HERE, '..', '.bench-prof')] =
  process.argv.slice(2);
const CALLS = Number(callsArg);
const BYTES = Number(process.env.BENCH_BYTES ?? 4096);
const LINE = `${'lorem ipsum dolor sit amet '.repeat(3).slice(0, 63)}\n`;
const BODY = `${LINE.repeat(Math.ceil(BYTES / 64)).slice(0, BYTES - 1)}\n`;

async function main(): Promise<void> {
  const data = await mkdtemp(join(tmpdir(), 'satchel-prof-'));
  const engine = await openSatchel({ data });
  await engine.createWorkspace('bench');
  await engine.writeFiles(
    'bench',
    Array.from({ length: 100 }, (_, i) => ({ path: `/files/f${i}.md`, content: BODY })),
  );
  await engine.close();
  const client = new Client({ name: 'profile', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        '--cpu-prof',
        `--cpu-prof-dir=${resolve(outArg)}`,
        CLI,
        'mcp',
        '--data',
        data,
        '-w',
        'bench',
      ],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'inherit',
    }),
  );
  await client.listTools();
  const call = (i: number) =>
    what === 'write'
      ? {
          name: 'write_file',
          arguments: {
            path: `/files/w${i % 100}.md`,
            content: `${String(i).padStart(7, '0')}\n${BODY.slice(8)}`,
          },
        }
      : { name: 'read_text_file', arguments: { path: `/files/f${i % 100}.md` } };
  for (let i = 0; i < 200; i++) await client.callTool(call(i));
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const result = await client.callTool(call(i));
    if (result.isError) throw new Error(JSON.stringify(result.content));
  }
  const ms = performance.now() - start;
  console.log(
    `${what}: ${CALLS} calls, ${((CALLS / ms) * 1000).toFixed(0)} ops/s, ${((ms / CALLS) * 1000).toFixed(0)} µs/call`,
  );
  await client.close();
  await rm(data, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
