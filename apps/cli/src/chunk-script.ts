/**
 * How a chunk of the built binary is compiled (start.ts), and how build.mjs compiles them ahead
 * of time (`v8-cache.ts`): the same flags, the same wrapper, so that V8 takes the data one made
 * for the other. V8 keys its data by its version, its flags and the source.
 */
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

// fetch's HTTP parser is WebAssembly, which Node 20 also compiles with the optimising tier on
// a background thread, and the process waits for that at exit: ~130 ms of a command against a
// server (docs/benchmarks.md, "The hot path, fourth pass"). The baseline tier parses a
// response's head and framing fast enough for a command line, long-running sync included. Set
// before any chunk is compiled: the flags are part of what V8's data must match.
setFlagsFromString('--liftoff-only');

/** The arguments a chunk's code runs with: CommonJS's five, then what start.ts gives it. */
const HEAD =
  '(function (exports, require, module, __filename, __dirname, __importMetaUrl, __importChunk) {';

/** Which Node V8's data is for: it names the folders the data lives in. */
export const V8_KEY = `${process.version}-${process.arch}`;

/** The folder of the data the build made for this Node, in the `dist` folder given. */
export function builtData(dist: string): string {
  return join(dist, 'v8', V8_KEY);
}

/** A chunk's source as a script, with V8's data for it when there is some. */
export function chunkScript(filename: string, source: string, cachedData?: Buffer): Script {
  return new Script(`${HEAD}${source}\n})`, { filename, cachedData });
}
