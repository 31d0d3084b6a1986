/**
 * Builds the `satchel` binary: src/main.ts and everything it imports, our packages and their
 * dependencies, as one esbuild bundle in dist/ (main.js, the chunks its commands load on first
 * use, and core's grep worker). Loading a few large files instead of ~680 modules halves the
 * start of a command (docs/benchmarks.md, CLI cold start). Types are checked by `typecheck`.
 *
 * What the bundle still looks up at run time resolves from this package, as if its code were
 * here: better-sqlite3 (native), the modules core, the API and the web app require lazily or by
 * path (mime-types, pg, the AWS SDK, swagger-ui-dist, htmx.org; dependencies of this package),
 * and the packages that find their own files by name (`@satchel/web/assets/*`,
 * `@satchel/mcp/package.json`), which are dependencies already. `../package.json` beside dist/
 * is this package's, as it was for tsc's output.
 */
import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

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
};

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

await rm(join(here, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: here,
  entryPoints: { main: 'src/main.ts', 'grep-worker': '@satchel/core/grep-worker' },
  outdir: 'dist',
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  jsx: 'automatic',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [zodLocales],
  external: [
    ...Object.keys(LOOKED_UP),
    // Optional speed-ups of ws and ink's devtools, absent unless installed.
    ...['bufferutil', 'utf-8-validate', 'react-devtools-core'],
  ],
  // CommonJS code inside an ES module bundle still calls `require` for Node's own modules.
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
