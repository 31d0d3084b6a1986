#!/usr/bin/env node
/**
 * The built `satchel` binary (dist/main.js): loads the program, which build.mjs turns into
 * CommonJS chunks (dist/*.cjs), through V8's code cache.
 *
 * A command's start was mostly V8 parsing ~1.5 MB of source (docs/benchmarks.md, CLI cold
 * start). A chunk is compiled here with `vm.Script` and the data V8 made for it before, and V8
 * skips the parse. Node 22 does this itself (`module.enableCompileCache`); Node 20 offers it only
 * for scripts, hence the chunks.
 *
 * The data comes from the user's cache folder, `$XDG_CACHE_HOME/satchel` (else
 * `~/.cache/satchel`; one folder per build and Node version, the three newest kept), else from
 * `dist/v8/`, made by the build for the Node that built it (v8-cache.ts). V8 refuses data that
 * does not match the source, its version or its flags; the chunk is then compiled from source.
 * Unless a chunk started from the user's own data, what V8 made of it, the functions the command
 * ran included, is saved to the user's cache folder when the command ends. The cache is an
 * optimisation only: any error reading or writing it is ignored, and deleting it is always safe.
 */
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Script } from 'node:vm';
import { builtData, chunkScript, V8_KEY } from './chunk-script.js';

/** Set by build.mjs: the build's id, the program's chunk, and the ES modules chunks need first. */
declare const SATCHEL_BUILD: {
  readonly id: string;
  readonly entry: string;
  /** For a chunk loaded by `import()`: the ES-only packages its static imports reach. */
  readonly esm: Readonly<Record<string, readonly string[]>>;
};

const dist = dirname(fileURLToPath(import.meta.url));
const requireHere = createRequire(import.meta.url);
/** ES-only packages (with top-level await: `require` cannot load them), once imported. */
const esModules = new Map<string, unknown>();
const chunks = new Map<string, { exports: unknown }>();
/** Chunks that did not start from the user's own data: saved once the command is done. */
const unsaved: [name: string, script: Script][] = [];

/** Build folders kept: a second install (a global one beside a checkout) keeps its cache too. */
const KEEP = 3;

/**
 * `$XDG_CACHE_HOME/satchel/v8/<build>-<node>-<arch>`, else under `~/.cache`; null without a home.
 * A relative XDG_CACHE_HOME is ignored, as the XDG specification says: the cache never lands in
 * the folder a command runs in.
 */
function cacheFolder(): string | null {
  const xdg = process.env.XDG_CACHE_HOME;
  let base: string;
  try {
    base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
  } catch {
    return null;
  }
  if (!isAbsolute(base)) return null;
  return join(base, 'satchel', 'v8', `${SATCHEL_BUILD.id}-${V8_KEY}`);
}
const cache = cacheFolder();

/** Removes all but the most recently made build folders beside `folder`. */
function prune(folder: string): void {
  const parent = dirname(folder);
  const others = readdirSync(parent)
    .map((name) => join(parent, name))
    .filter((path) => path !== folder)
    .map((path) => ({ path, made: statSync(path).mtimeMs }))
    .sort((a, b) => b.made - a.made);
  for (const { path } of others.slice(KEEP - 1)) rmSync(path, { recursive: true, force: true });
}

/** What the build made for this Node (v8-cache.ts). */
const shipped = builtData(dist);

/**
 * V8's data for chunk `name`, and whether it is the user's own (made by a run). The build's data
 * holds only what V8 compiles up front, not the functions a command runs.
 */
function cached(name: string): { data: Buffer; own: boolean } | undefined {
  for (const folder of cache === null ? [shipped] : [cache, shipped]) {
    try {
      return { data: readFileSync(join(folder, name)), own: folder === cache };
    } catch {
      // None there.
    }
  }
  return undefined;
}

/** Writes what V8 compiled, after the command: functions compiled while it ran are in it too. */
function save(): void {
  if (cache === null || unsaved.length === 0) return;
  try {
    // A new folder: the oldest folders of other builds (or Node versions) are stale.
    if (mkdirSync(cache, { recursive: true, mode: 0o700 }) !== undefined) prune(cache);
    for (const [name, script] of unsaved) {
      const temporary = join(cache, `${name}.${process.pid}.tmp`);
      try {
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, join(cache, name));
      } catch (error) {
        rmSync(temporary, { force: true });
        throw error;
      }
    }
  } catch {
    // A read-only or full disk costs the next start its cache, nothing else.
  }
}

/** The `require` a chunk is given: other chunks from here, everything else as Node resolves it. */
function requireFromChunk(specifier: string): unknown {
  if (specifier.startsWith('./')) return load(specifier.slice(2));
  return esModules.has(specifier) ? esModules.get(specifier) : requireHere(specifier);
}

/** A chunk's `import()` of another: the ES-only packages it needs first, then the chunk. */
async function importChunk(specifier: string): Promise<unknown> {
  const name = specifier.slice(2);
  for (const id of SATCHEL_BUILD.esm[name] ?? []) {
    if (!esModules.has(id)) esModules.set(id, await import(id));
  }
  return load(name);
}

function load(name: string): unknown {
  const known = chunks.get(name);
  if (known !== undefined) return known.exports;
  const chunk = { exports: {} };
  chunks.set(name, chunk);
  const filename = join(dist, name);
  const source = readFileSync(filename, 'utf8');
  const found = cached(name);
  const script = chunkScript(filename, source, found?.data);
  // Saved unless the user's own data served: the next start then finds the functions this
  // command compiled too (~30 ms of `ls`, docs/benchmarks.md).
  if (found?.own !== true || script.cachedDataRejected === true) unsaved.push([name, script]);
  script.runInThisContext()(
    chunk.exports,
    requireFromChunk,
    chunk,
    filename,
    dist,
    pathToFileURL(filename).href,
    importChunk,
  );
  return chunk.exports;
}

process.once('exit', save);
load(SATCHEL_BUILD.entry);
