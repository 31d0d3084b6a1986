/**
 * Progress bars for byte transfers (`put`, `get`, `sync`) and row copies (`migrate`): amount done
 * of total, amount/s and ETA,
 * drawn with cli-progress on stderr — only when stderr is a terminal, so pipes, logs and tests
 * see nothing. The bar is never coloured (NO_COLOR needs nothing more).
 *
 * Usage: `const bar = progressBar({ stream: io.stderr, enabled: progressEnabled(io), label,
 * total })`, then either pass the bytes through `bar.track(source)` or call `bar.add(n)`, and
 * always `bar.stop()` (also on failure, before the error is printed: it ends the bar's line).
 */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type { SingleBar as SingleBarClass } from 'cli-progress';
import type { Io } from './context.js';
import { humanDuration, humanSize } from './format.js';

/** Transfers below this size finish too fast for a bar to help; they get none. */
export const DEFAULT_MIN_BYTES = 1024 * 1024;

export interface ProgressOptions {
  /** Where the bar is drawn: stderr. */
  readonly stream: Writable;
  /** Draw at all; `progressEnabled(io)` says whether stderr is a terminal. */
  readonly enabled: boolean;
  /** What moves, e.g. `put /reports/q3.pdf`. */
  readonly label: string;
  /** Bytes expected; null when unknown (stdin): then bytes and speed only, no bar or ETA. */
  readonly total: number | null;
  /** No bar until this many bytes are expected or have moved (default 1 MiB). */
  readonly minBytes?: number;
  /** What is counted: bytes (default, `1.5 MiB`) or rows (`1200 rows`). */
  readonly unit?: 'bytes' | 'rows';
  /** More to show after the label, read at every redraw (sync: `120/10000 files`). */
  readonly detail?: () => string;
}

export interface Progress {
  /** `source`, unchanged, counting its bytes into the bar as they are consumed. */
  track<T extends Uint8Array | string>(source: AsyncIterable<T>): AsyncIterable<T>;
  /** Counts `bytes` more. */
  add(bytes: number): void;
  /**
   * A resumed transfer: `bytes` were already there before this run. They count as done and
   * the bar says `resumed at …`, but they do not count into the speed or the ETA.
   */
  resume(bytes: number): void;
  /**
   * Of what `add` counts (now or later), `bytes` more were already there before this run (a
   * sync resuming uploads): shown beside the amount and left out of the speed.
   */
  resumedToo(bytes: number): void;
  /** Sets the amount done (a resumable upload reports absolute offsets; it can move back). */
  set(bytes: number): void;
  /** Draws the final state and ends the bar's line; nothing if no bar was drawn. Idempotent. */
  stop(): void;
}

/** True when a bar may be drawn: stderr is a terminal. */
export function progressEnabled(io: Io): boolean {
  return io.stderrIsTTY === true;
}

const NONE: Progress = {
  track: (source) => source,
  add: () => undefined,
  resume: () => undefined,
  resumedToo: () => undefined,
  set: () => undefined,
  stop: () => undefined,
};

const rows = (n: number): string => `${n} rows`;

/** `12.0 MiB/s`; `-` before any time has passed. */
function speed(amount: number, ms: number, show: (n: number) => string): string {
  return ms <= 0 ? '-' : `${show(Math.round((amount * 1000) / ms))}/s`;
}

/** cli-progress, loaded when a bar is drawn: most runs (pipes, tests, small files) draw none. */
function SingleBar(): typeof SingleBarClass {
  const require = createRequire(import.meta.url);
  return (require('cli-progress') as typeof import('cli-progress')).SingleBar;
}

/** A progress bar, or a no-op one when `enabled` is false. */
export function progressBar(options: ProgressOptions): Progress {
  if (!options.enabled) return NONE;
  const { stream, label, total } = options;
  const minBytes = options.minBytes ?? DEFAULT_MIN_BYTES;
  const show = options.unit === 'rows' ? rows : humanSize;
  const known = total !== null;
  const Bar = SingleBar();
  const bar = new Bar({
    stream,
    format: known
      ? `${label}{detail} [{bar}] {percentage}% {done}/{size}{resumed} {speed} ETA {left}`
      : `${label}{detail} {done}{resumed} {speed}`,
    barsize: 24,
    barCompleteChar: '#',
    barIncompleteChar: '-',
    fps: 10,
    hideCursor: false,
    // Leaves the signals' default behaviour alone (cli-progress would swallow Ctrl-C).
    gracefulExit: false,
  });
  const started = Date.now();
  let bytes = 0;
  /** Bytes that were there before this run (a resumed upload): done, but not moved now. */
  let resumed = 0;
  /** One transfer resumed at an offset (`resume`), or resumed parts of many (`resumedToo`). */
  let many = false;
  let drawing = false;
  let stopped = false;

  const payload = () => {
    const elapsed = Date.now() - started;
    const moved = Math.max(0, bytes - resumed);
    const rate = elapsed > 0 ? moved / elapsed : 0;
    const left = known && rate > 0 ? humanDuration((total - bytes) / rate) : '-';
    return {
      detail: options.detail === undefined ? '' : ` ${options.detail()}`,
      done: show(bytes),
      size: show(total ?? bytes),
      resumed:
        resumed === 0
          ? ''
          : known && !many
            ? ` (resumed at ${show(resumed)})`
            : ` (${show(resumed)} resumed)`,
      speed: speed(moved, elapsed, show),
      left,
    };
  };

  const add = (n: number) => {
    if (stopped) return;
    bytes += n;
    if (!drawing && (total ?? bytes) >= minBytes) {
      drawing = true;
      bar.start(total ?? 0, bytes, payload());
      return;
    }
    if (drawing) bar.update(bytes, payload());
  };

  return {
    add,
    resume(n) {
      resumed = n;
      add(n - bytes);
    },
    set(n) {
      add(n - bytes);
    },
    resumedToo(n) {
      many ||= n > 0;
      resumed += n;
      add(0);
    },
    async *track(source) {
      for await (const piece of source) {
        add(typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength);
        yield piece;
      }
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (!drawing) return;
      bar.update(bytes, payload());
      bar.stop();
    },
  };
}
