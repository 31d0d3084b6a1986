/**
 * Builds the `satchel` binary in dist/:
 *
 * - the program (src/main.ts and everything it imports, our packages and their dependencies) as
 *   esbuild chunks, made CommonJS (`*.cjs`): a command loads the few large chunks it needs
 *   instead of ~680 modules;
 * - main.js (src/start.ts), which loads those chunks through V8's code cache, so that a start
 *   does not parse them again (docs/architecture.md, "The CLI's start"), and that cache for the
 *   Node running the build in v8/ (src/v8-cache.ts);
 * - grep-worker.js, core's grep worker, an ES module of its own.
 *
 * The chunks are built as ES modules first (esbuild splits only those), then each is turned into
 * CommonJS: `import()` of a chunk becomes `__importChunk`, and `import.meta.url` the chunk's URL,
 * both given by start.ts. Packages that are ES modules only (ink, whose layout engine loads with
 * a top-level await) stay outside, and start.ts imports them before a chunk that needs them.
 *
 * What the bundle still looks up at run time resolves from this package, as if its code were
 * here: better-sqlite3 (native), the modules core, the API and the web app require lazily or by
 * path (mime-types, pg, the AWS SDK, swagger-ui-dist, htmx.org; dependencies of this package),
 * ink and React (one React for ink and our components), and the packages that find their own
 * files by name (`@satchel/web/assets/*`, `@satchel/mcp/package.json`), which are dependencies
 * already. `../package.json` beside dist/ is this package's, as it was for tsc's output.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { dependencies } = JSON.parse(await readFile(join(here, 'package.json'), 'utf8'));

/** Packages the bundle leaves out (native, or found by path at run time), and a file of each. */
const LOOKED_UP = {
  'better-sqlite3': 'better-sqlite3',
  'mime-types': 'mime-types',
  pg: 'pg',
  '@aws-sdk/client-s3': '@aws-sdk/client-s3',
  'swagger-ui-dist': 'swagger-ui-dist/package.json',
  'htmx.org': 'htmx.org/dist/htmx.min.js',
  ink: 'ink',
  react: 'react/jsx-runtime',
};

/** Packages that are ES modules only: start.ts imports them before the chunk that needs them. */
const ES_ONLY = ['ink'];

/**
 * zod's `z` namespace re-exports every locale (~300 KB of its ~570 KB here) and esbuild keeps
 * all of a namespace that is used as an object. Only English is used (zod imports it itself,
 * from locales/en.js), so `z.locales` is left empty: every command compiles less at start.
 */
const zodLocales = {
  name: 'zod-locales',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      /[\\/]zod[\\/]v4[\\/]/.test(importer)
        ? { path: 'zod-locales', namespace: 'stub' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export {};' }));
  },
};

const common = {
  absWorkingDir: here,
  bundle: true,
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
};

const program = await build({
  ...common,
  entryPoints: { satchel: 'src/main.ts' },
  outdir: 'dist',
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  splitting: true,
  format: 'esm',
  jsx: 'automatic',
  plugins: [zodLocales],
  external: [
    ...Object.keys(LOOKED_UP),
    // Optional speed-ups of ws and ink's devtools, absent unless installed.
    ...['bufferutil', 'utf-8-validate', 'react-devtools-core'],
  ],
  define: { 'import.meta.url': '__importMetaUrl' },
  metafile: true,
  write: false,
});

/** Each chunk's file name, and what it imports: other chunks (statically or not) and packages. */
const outputs = new Map(
  Object.entries(program.metafile.outputs).map(([path, output]) => [basename(path), output]),
);
const cjs = (name) => name.replace(/\.js$/, '.cjs');

/** The ES-only packages a chunk's static imports reach, through other chunks too. */
function esOnly(name, seen = new Set()) {
  if (seen.has(name)) return [];
  seen.add(name);
  return (outputs.get(name)?.imports ?? []).flatMap(({ path, kind, external }) => {
    if (kind !== 'import-statement') return [];
    if (external) return ES_ONLY.includes(path) ? [path] : [];
    return esOnly(basename(path), seen);
  });
}

await rm(join(here, 'dist'), { recursive: true, force: true });
await mkdir(join(here, 'dist'));
const ids = createHash('sha256');
const esm = {};
for (const file of program.outputFiles) {
  const name = basename(file.path);
  // The chunks' names are esbuild's hashes: each string below is one of them, nothing else.
  let code = file.text.replace(/^#!.*\n/, '');
  for (const other of outputs.keys()) {
    code = code
      .replaceAll(`import("./${other}")`, `__importChunk("./${cjs(other)}")`)
      .replaceAll(`"./${other}"`, `"./${cjs(other)}"`);
  }
  for (const { path, kind, external } of outputs.get(name).imports) {
    if (kind !== 'dynamic-import') continue;
    if (external && ES_ONLY.includes(path)) {
      throw new Error(`build.mjs: ${name} imports ${path} with import(), which start.ts cannot`);
    }
    const needs = external ? [] : [...new Set(esOnly(basename(path)))];
    if (needs.length > 0) esm[cjs(basename(path))] = needs;
  }
  const { code: commonjs } = await transform(code, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    minifySyntax: true,
    // What `import()` is left loads Node's modules (or CommonJS packages): `require` does.
    supported: { 'dynamic-import': false },
    // Left only where a branch runs from TypeScript sources, never in the bundle.
    logOverride: { 'empty-import-meta': 'silent' },
  });
  ids.update(commonjs);
  await writeFile(join(here, 'dist', cjs(name)), commonjs);
}
if (esOnly('satchel.js').length > 0) {
  throw new Error('build.mjs: an ES-only package is reached before any import()');
}

await build({
  ...common,
  entryPoints: { main: 'src/start.ts' },
  outdir: 'dist',
  format: 'esm',
  define: {
    SATCHEL_BUILD: JSON.stringify({
      id: ids.digest('hex').slice(0, 16),
      entry: 'satchel.cjs',
      esm,
    }),
  },
});

// V8's data for the chunks, made by the Node that builds (start.ts uses it when it matches),
// without the builder's NODE_OPTIONS: V8 keys its data by the flags of a plain `satchel`.
await build({
  ...common,
  entryPoints: { 'v8-cache': 'src/v8-cache.ts' },
  outdir: 'dist',
  format: 'esm',
});
execFileSync(process.execPath, [join(here, 'dist', 'v8-cache.js')], {
  stdio: 'inherit',
  env: { ...process.env, NODE_OPTIONS: '' },
});
await rm(join(here, 'dist', 'v8-cache.js'));

// Core's grep worker: a file of its own, started as a worker thread beside the chunks.
await build({
  ...common,
  entryPoints: { 'grep-worker': '@satchel/core/grep-worker' },
  outdir: 'dist',
  format: 'esm',
  plugins: [zodLocales],
  banner: {
    js: "import { createRequire as __satchelRequire } from 'node:module'; const require = __satchelRequire(import.meta.url);",
  },
});

// Every run-time lookup must resolve from here: fail the build, not a user's command.
for (const [name, path] of Object.entries(LOOKED_UP)) {
  if (!(name in dependencies)) throw new Error(`build.mjs: ${name} must be a dependency`);
  require.resolve(path);
}
// And the files our packages find through their names.
for (const path of ['@satchel/web/assets/app.css', '@satchel/mcp/package.json'])
  require.resolve(path);
