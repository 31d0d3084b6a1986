/**
 * `pnpm bench`: Satchel's MCP server (`satchel mcp`, built CLI) against the official filesystem
 * server (@modelcontextprotocol/server-filesystem), both over stdio with the SDK client, on the
 * same files: read_text_file and write_file ops/s, search_files "**\/*.md" over a 10,000-file
 * tree. Then where Satchel's time goes: the engine alone, MCP in memory, MCP over stdio.
 * Rounds alternate between the servers; figures are medians with the per-round range.
 * BENCH_ROUNDS, BENCH_OPS, BENCH_TREE, BENCH_BYTES (file size, default 4096); BENCH_CPU_PROF=<dir>
 * runs both server processes under `node --cpu-prof` and leaves their profiles in <dir>;
 * BENCH_CLI=<main.js> runs another build of the CLI (default: apps/cli/dist/main.js).
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { openSatchel } from '@satchel/core';
import { createMcpServer } from '../src/server.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TMP = join(HERE, '..', '.bench-tmp', `run-${process.pid}`);
const CLI = process.env.BENCH_CLI ?? join(HERE, '..', '..', 'cli', 'dist', 'main.js');
const OFFICIAL = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer`);
  return value;
}

const ROUNDS = envInt('BENCH_ROUNDS', 5);
const OPS = envInt('BENCH_OPS', 300);
const TREE = envInt('BENCH_TREE', 10_000);
const BYTES = envInt('BENCH_BYTES', 4096);
const CPU_PROF = process.env.BENCH_CPU_PROF;
const FILES = 100;
/**
 * Markdown-like text of exactly BYTES bytes in 64-byte lines; a write replaces its first 8 bytes with
 * the call's number.
 */
const LINE = `${'lorem ipsum dolor sit amet '.repeat(3).slice(0, 63)}\n`;
const BODY = `${LINE.repeat(Math.ceil(BYTES / 64)).slice(0, BYTES - 1)}\n`;
const numbered = (i: number) =>
  BYTES > 8 ? `${String(i).padStart(7, '0')}\n${BODY.slice(8)}` : BODY;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

interface Side {
  readonly name: string;
  readonly client: Client;
  /** The path argument for a workspace path like "/files/f1.md". */
  path(p: string): string;
}

async function stdioClient(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const profile = CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`];
  await client.connect(
    new StdioClientTransport({
      command,
      args: [...profile, ...args],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    }),
  );
  await client.listTools();
  return client;
}

async function check(client: Client, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
}

/** Calls per second of `ops` sequential calls. */
async function rate(
  side: Side,
  ops: number,
  call: (i: number) => [string, Record<string, unknown>],
) {
  const start = performance.now();
  for (let i = 0; i < ops; i++) {
    const [name, args] = call(i);
    await check(side.client, name, args);
  }
  return ops / ((performance.now() - start) / 1000);
}

const readCall =
  (side: Side) =>
  (i: number): [string, Record<string, unknown>] => [
    'read_text_file',
    { path: side.path(`/files/f${i % FILES}.md`) },
  ];
const writeCall =
  (side: Side) =>
  (i: number): [string, Record<string, unknown>] => [
    'write_file',
    { path: side.path(`/files/w${i % FILES}.md`), content: numbered(i) },
  ];
const searchCall = (side: Side) => (): [string, Record<string, unknown>] => [
  'search_files',
  { path: side.path('/tree'), pattern: '**/*.md' },
];

async function seed(root: string, data: string): Promise<void> {
  const treeFiles = Array.from({ length: TREE }, (_, i) => {
    const dir = `/tree/d${i % 50}/e${i % 7}`;
    return { path: `${dir}/n${i}.${i % 2 === 0 ? 'md' : 'txt'}`, content: `# note ${i}\n` };
  });
  const small = Array.from({ length: FILES }, (_, i) => ({
    path: `/files/f${i}.md`,
    content: BODY,
  }));
  for (const f of [...small, ...treeFiles]) {
    await mkdir(dirname(join(root, f.path)), { recursive: true });
    await writeFile(join(root, f.path), f.content);
  }
  const engine = await openSatchel({ data });
  await engine.createWorkspace('bench');
  const all = [...small, ...treeFiles];
  for (let i = 0; i < all.length; i += 500) await engine.writeFiles('bench', all.slice(i, i + 500));
  await engine.close();
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: pnpm --filter @satchel/cli... build`);
  const root = join(TMP, 'fs');
  const data = join(TMP, 'data');
  await mkdir(root, { recursive: true });
  console.log(
    `satchel mcp bench — ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} CPUs; ` +
      `${ROUNDS} rounds of ${OPS} calls, ${FILES} files of ${BYTES} bytes, search over ${TREE} files`,
  );
  await seed(root, data);
  const satchel: Side = {
    name: 'satchel',
    client: await stdioClient(process.execPath, [CLI, 'mcp', '--data', data, '-w', 'bench']),
    path: (p) => p,
  };
  const official: Side = {
    name: 'official',
    client: await stdioClient(process.execPath, [OFFICIAL, root]),
    path: (p) => join(root, p),
  };
  const sides = [satchel, official];
  try {
    // JIT warm-up of both processes: ~2 s each of the calls measured below.
    for (const side of sides) {
      const until = performance.now() + 2000;
      for (let i = 0; performance.now() < until; i++) {
        await check(side.client, ...readCall(side)(i));
        if (i % 10 === 0) await check(side.client, ...writeCall(side)(i));
      }
      await check(side.client, ...searchCall(side)());
    }
    const figures: Record<string, Record<string, number[]>> = {
      read: { satchel: [], official: [] },
      write: { satchel: [], official: [] },
      search: { satchel: [], official: [] },
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first: a shared, noisy machine drifts.
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        figures.read?.[side.name]?.push(await rate(side, OPS, readCall(side)));
        figures.write?.[side.name]?.push(await rate(side, OPS, writeCall(side)));
        const start = performance.now();
        await check(side.client, ...searchCall(side)());
        figures.search?.[side.name]?.push(performance.now() - start);
      }
    }
    // Targets of issue 15 (read, write) and of the first MCP issue (search: lower is better).
    const rows = [
      { what: 'read', name: 'read_text_file', unit: 'ops/s', target: 1.2, higherIsBetter: true },
      { what: 'write', name: 'write_file', unit: 'ops/s', target: 1, higherIsBetter: true },
      {
        what: 'search',
        name: 'search_files **/*.md',
        unit: 'ms',
        target: 10,
        higherIsBetter: false,
      },
    ] as const;
    const cell = (values: readonly number[], unit: string) => {
      const digits = unit === 'ms' ? 1 : 0;
      const range = `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
      return `${median(values).toFixed(digits)} ${unit} (${range})`;
    };
    console.log(
      '\n| benchmark | satchel median (range) | official median (range) | ratio | per-round ratios | target | result |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const row of rows) {
      const s = figures[row.what]?.satchel ?? [];
      const o = figures[row.what]?.official ?? [];
      const ratioOf = (a: number, b: number) => (row.higherIsBetter ? a / b : b / a);
      const ratio = ratioOf(median(s), median(o));
      const perRound = s.map((v, i) => `${ratioOf(v, o[i] ?? Number.NaN).toFixed(2)}`).join(' ');
      console.log(
        `| ${row.name} | ${cell(s, row.unit)} | ${cell(o, row.unit)} | ${ratio.toFixed(2)}× | ${perRound} | ≥ ${row.target}× | ${ratio >= row.target ? 'PASS' : 'MISS'} |`,
      );
    }
  } finally {
    for (const side of sides) await side.client.close();
  }
  await breakdown(data);
}

/** Where Satchel's time goes: the same reads and writes on the engine alone and through MCP in memory. */
async function breakdown(data: string): Promise<void> {
  const engine = await openSatchel({ data });
  try {
    const timed = async (work: (i: number) => Promise<unknown>) => {
      const rates: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const start = performance.now();
        for (let i = 0; i < OPS; i++) await work(i);
        rates.push(OPS / ((performance.now() - start) / 1000));
      }
      return median(rates);
    };
    const server = await createMcpServer(engine, { workspace: 'bench' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await Promise.all([server.connect(b), client.connect(a)]);
    await client.listTools();
    const memory: Side = { name: 'memory', client, path: (p) => p };
    await timed((i) => check(client, ...readCall(memory)(i)));
    const engineRead = await timed((i) => engine.readText('bench', `/files/f${i % FILES}.md`));
    const memoryRead = await timed((i) => check(client, ...readCall(memory)(i)));
    const engineWrite = await timed((i) =>
      engine.writeFile('bench', `/files/w${i % FILES}.md`, numbered(i)),
    );
    const memoryWrite = await timed((i) => check(client, ...writeCall(memory)(i)));
    const searchStart = performance.now();
    await engine.list('bench', { path: '/tree', glob: '**/*.md', limit: 100 });
    const engineSearch = performance.now() - searchStart;
    await client.close();
    console.log('\nWhere the time goes (satchel, medians; µs per call):');
    console.log('| call | engine alone | MCP in memory |');
    console.log('|---|---|---|');
    console.log(
      `| read_text_file | ${(1e6 / engineRead).toFixed(0)} | ${(1e6 / memoryRead).toFixed(0)} |`,
    );
    console.log(
      `| write_file | ${(1e6 / engineWrite).toFixed(0)} | ${(1e6 / memoryWrite).toFixed(0)} |`,
    );
    console.log(
      `| search_files (engine list with glob, one call) | ${(engineSearch * 1000).toFixed(0)} | - |`,
    );
  } finally {
    await engine.close();
  }
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rm(join(HERE, '..', '.bench-tmp'), { recursive: true, force: true }));
