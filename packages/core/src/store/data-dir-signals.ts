/**
 * Wake-up signals between the processes that opened one embedded database: every publish
 * appends one JSON line to a signal file beside the database (`satchel.db-signals`), and every
 * process watches that file (`fs.watch`: inotify on Linux, kqueue on macOS) and reads what was
 * appended since it last looked. One `write` per batch of commits, no fsync: a signal is not data.
 *
 * Signals may be lost (the watch may not work on this file system, a reader may miss lines when
 * the file is cut short), so receivers keep re-reading on their timer (`recheckMs`); a reader
 * that notices the file was cut short delivers `resync` (everyone waiting re-reads at once).
 * The file only ever holds the last few thousand signals: whoever finds it past `maxBytes`
 * truncates it. If the file cannot be opened or watched, this is `LocalSignals` plus the timer.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  type FSWatcher,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  watch,
  writeSync,
} from 'node:fs';
import {
  DEFAULT_RECHECK_MS,
  decodeSignal,
  encodeSignal,
  LocalSignals,
  type Signal,
} from './signals.js';

export interface DataDirSignalsOptions {
  /** The receivers' safety re-check while the watch works (ms; default 1 s, as without it). */
  readonly recheckMs?: number;
  /** Past this size the file is truncated (bytes; default 256 KiB, about 3,000 signals). */
  readonly maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

export class DataDirSignals extends LocalSignals {
  readonly #recheckMs: number;
  readonly #maxBytes: number;
  /** Tells this process's own lines apart (they were delivered in place already). */
  readonly #node = randomBytes(6).toString('base64url');
  /** How this process's own lines end (`encodeSignal` puts the node last): skipped unparsed. */
  readonly #ownEnding = `"node":"${this.#node}"}`;
  #fd: number | null = null;
  #watcher: FSWatcher | null = null;
  /** Where this process has read the file up to: just past a newline, or 0. */
  #offset = 0;
  /** Bytes this process appended since it last read the file: its own echo is not read back. */
  #ownUnread = 0;
  /** Lines published in this tick, written together (a group commit notifies many at once). */
  readonly #pending = new Set<string>();
  #closed = false;

  private constructor(options: DataDirSignalsOptions) {
    super();
    this.#recheckMs = options.recheckMs ?? DEFAULT_RECHECK_MS;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  /**
   * Signals through `file` (created if missing, mode 0600). Never throws: when the file cannot
   * be opened or watched, other processes are only heard through the receivers' timers.
   */
  static open(file: string, options: DataDirSignalsOptions = {}): DataDirSignals {
    const signals = new DataDirSignals(options);
    signals.#start(file);
    return signals;
  }

  /** Whether other processes' signals reach this one (for tests and diagnostics). */
  get watching(): boolean {
    return this.#watcher !== null;
  }

  /** The configured re-check while the watch works; the usual second when it does not. */
  override get recheckMs(): number {
    return this.#watcher === null ? Math.min(this.#recheckMs, DEFAULT_RECHECK_MS) : this.#recheckMs;
  }

  override publish(signal: Signal): void {
    this.deliver(signal);
    if (this.#fd === null) return;
    if (this.#pending.size === 0) queueMicrotask(() => this.#flush());
    this.#pending.add(`${encodeSignal(signal, this.#node)}\n`);
  }

  override async close(): Promise<void> {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    this.#watcher?.close();
    this.#watcher = null;
    const fd = this.#fd;
    this.#fd = null;
    if (fd !== null) closeSync(fd);
  }

  #start(file: string): void {
    let fd: number | null = null;
    try {
      // O_APPEND: lines from several processes never overwrite each other.
      fd = openSync(file, 'a+', 0o600);
      const size = fstatSync(fd).size;
      if (size > this.#maxBytes) ftruncateSync(fd, 0);
      this.#offset = size > this.#maxBytes ? 0 : size;
      this.#fd = fd;
    } catch {
      if (fd !== null) closeSync(fd);
      return;
    }
    try {
      // Not persistent: an idle watch never keeps a process alive.
      const watcher = watch(file, { persistent: false }, (event) => {
        // Replaced or deleted: this inode hears nobody new; the timers take over.
        if (event === 'rename') this.#unwatch();
        else this.#drain();
      });
      watcher.on('error', () => this.#unwatch());
      this.#watcher = watcher;
    } catch {
      this.#watcher = null;
    }
  }

  #unwatch(): void {
    this.#watcher?.close();
    this.#watcher = null;
    // Whatever was missed is found by re-reading.
    if (!this.#closed) this.deliver({ kind: 'resync' });
  }

  #flush(): void {
    if (this.#pending.size === 0 || this.#fd === null) return;
    const lines = [...this.#pending].join('');
    this.#pending.clear();
    try {
      this.#ownUnread += writeSync(this.#fd, lines);
    } catch {
      // A signal that cannot be written costs the others their re-check interval, nothing more.
    }
  }

  /** Reads the lines appended since the last look and delivers the other processes' signals. */
  #drain(): void {
    const fd = this.#fd;
    if (fd === null || this.#closed) return;
    try {
      const size = fstatSync(fd).size;
      if (size === this.#offset) return;
      if (size - this.#offset === this.#ownUnread) {
        // Only this process wrote since: nothing to read (the common echo of a commit).
        this.#offset = size;
        this.#ownUnread = 0;
        this.#restartIfFull(fd, size);
        return;
      }
      this.#ownUnread = 0;
      let from = this.#offset;
      let bytes = size > from ? read(fd, Math.max(0, from - 1), size) : Buffer.alloc(0);
      // Cut short (shorter than where this process had read, or the byte before that no longer
      // ends a line): what was lost is found by re-reading; the lines since start at 0.
      if (from > 0 && bytes[0] !== NEWLINE) {
        this.deliver({ kind: 'resync' });
        from = 0;
        bytes = read(fd, 0, size);
      } else if (from > 0) {
        bytes = bytes.subarray(1);
      }
      if (bytes.byteLength > this.#maxBytes) {
        // Far behind (or not our file): skip to the last line; everyone here re-reads.
        bytes = bytes.subarray(bytes.byteLength - this.#maxBytes);
        bytes = bytes.subarray(bytes.indexOf(NEWLINE) + 1);
        this.deliver({ kind: 'resync' });
      }
      const end = bytes.lastIndexOf(NEWLINE) + 1;
      this.#offset = size - bytes.byteLength + end;
      this.#deliverLines(bytes.subarray(0, end));
      this.#restartIfFull(fd, size);
    } catch {
      // Unreadable now: the timers cover it.
    }
  }

  /**
   * Read to the end of a full file: starts it over. The others notice and re-read once; so does
   * this process, for a line that may have landed between the read and the truncation.
   */
  #restartIfFull(fd: number, size: number): void {
    if (this.#offset < this.#maxBytes || this.#offset !== size) return;
    ftruncateSync(fd, 0);
    this.#offset = 0;
    this.#ownUnread = 0;
    this.deliver({ kind: 'resync' });
  }

  #deliverLines(bytes: Buffer): void {
    const seen = new Set<string>();
    for (const line of bytes.toString('utf8').split('\n')) {
      if (line === '' || line.endsWith(this.#ownEnding) || seen.has(line)) continue;
      seen.add(line);
      const decoded = decodeSignal(line);
      if (decoded && decoded.node !== this.#node) this.deliver(decoded.signal);
    }
  }
}

function read(fd: number, from: number, to: number): Buffer {
  const buffer = Buffer.allocUnsafe(to - from);
  const got = readSync(fd, buffer, 0, buffer.length, from);
  return buffer.subarray(0, got);
}
