/**
 * Run by build.mjs once the chunks are written (`node dist/v8-cache.js`): compiles every chunk
 * and writes V8's data for it to `dist/v8/<node>-<arch>/`, where start.ts finds it. A command's
 * first start, in a fresh sandbox whose cache folder is empty, then skips parsing too. Data made
 * without running the code holds what V8 compiles up front, most of what a start would parse.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtData, chunkScript } from './chunk-script.js';

const dist = dirname(fileURLToPath(import.meta.url));
const folder = builtData(dist);
mkdirSync(folder, { recursive: true });
for (const name of readdirSync(dist).filter((file) => file.endsWith('.cjs'))) {
  const filename = join(dist, name);
  const script = chunkScript(filename, readFileSync(filename, 'utf8'));
  writeFileSync(join(folder, name), script.createCachedData());
}
