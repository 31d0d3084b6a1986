#!/usr/bin/env node
/**
 * The `satchel` program: the only module that touches `process`. The built binary starts it
 * through `start.ts`, which loads it with V8's code cache; `tsx src/main.ts` runs it directly.
 * It ends with a `then`, not a top-level await: the build turns it into CommonJS.
 */
import { isatty } from 'node:tty';
import { setFlagsFromString } from 'node:v8';
import { run } from './program.js';

// The built binary has set it before compiling any chunk (chunk-script.ts says why); the same
// here for `tsx src/main.ts`.
setFlagsFromString('--liftoff-only');

// A reader that stops early (`satchel cat big.log | head`) is not an error: end quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

void run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  // Lazy: touching process.stdin opens it, which commands that never read stdin do not need.
  get stdin() {
    return process.stdin;
  },
  env: process.env,
  cwd: process.cwd(),
  isTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  // Asked of the descriptor: process.stdin would open the stream.
  stdinIsTTY: isatty(0),
  // V8 lets the heap grow to 2–4× what is live between full collections: a push of 100,000
  // files held ~75 MB and peaked at ~330 MiB of RSS; growing by 30 % at most it peaks at
  // ~230–260 MiB, for ~15 % more client CPU (docs/benchmarks.md, issue 19).
  compactHeap: () => setFlagsFromString('--heap-growing-percent=30'),
  // Listening only once asked: a second signal then finds no listener and ends the process.
  untilStopped: () =>
    new Promise((resolve) => {
      const stop = (signal: NodeJS.Signals) => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve(signal);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    }),
}).then((code) => {
  process.exitCode = code;
});
