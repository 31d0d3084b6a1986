/**
 * Wake-up signals between the nodes of one PostgreSQL database: LISTEN/NOTIFY on one dedicated
 * connection per node. A signal is a small JSON payload naming what changed, never the data.
 *
 * NOTIFY is lost while a listener is disconnected, so after every reconnect this node delivers a
 * `resync` signal (everyone waiting re-reads at once); the receivers' own timers cover the gap
 * before that. Publishing never waits and never throws: a signal that cannot be sent costs the
 * other nodes up to their re-check interval (≤ 1 s), never a missed change.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { decodeSignal, encodeSignal, LocalSignals, type Signal } from '../signals.js';

export interface PgSignalsOptions {
  /** The NOTIFY channel; nodes that should hear each other use the same one. */
  readonly channel?: string;
  /** Longest pause between reconnect attempts (ms); it doubles from 100 ms up to this. */
  readonly maxRetryMs?: number;
  /** Told about connection trouble (default: one JSON line on stderr per outage). */
  readonly onError?: (error: unknown) => void;
}

const DEFAULT_CHANNEL = 'satchel_signals';

function logError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${JSON.stringify({ level: 'warn', msg: 'signals', error: message })}\n`);
}

export class PgSignals extends LocalSignals {
  readonly #config: pg.ClientConfig;
  readonly #channel: string;
  readonly #maxRetryMs: number;
  readonly #onError: (error: unknown) => void;
  /** Tells this node's own notifications apart (they were delivered in place already). */
  readonly #node = randomUUID();
  #client: pg.Client | null = null;
  #retryMs = 100;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;
  #failing = false;

  private constructor(config: pg.ClientConfig, options: PgSignalsOptions) {
    super();
    this.#config = config;
    this.#channel = options.channel ?? DEFAULT_CHANNEL;
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.#channel)) {
      throw new RangeError(
        `signal channel must be a plain lower-case identifier: ${this.#channel}`,
      );
    }
    this.#maxRetryMs = options.maxRetryMs ?? 5000;
    this.#onError = options.onError ?? logError;
  }

  /** Listens on `config`'s database; rejects if it cannot connect now (a node fails at start). */
  static async connect(
    config: pg.ClientConfig,
    options: PgSignalsOptions = {},
  ): Promise<PgSignals> {
    const signals = new PgSignals(config, options);
    await signals.#listen();
    return signals;
  }

  /** Whether the listening connection is up (for readiness checks). */
  get listening(): boolean {
    return this.#client !== null;
  }

  override publish(signal: Signal): void {
    this.deliver(signal);
    const client = this.#client;
    if (!client) return;
    const payload = encodeSignal(signal, this.#node);
    client.query('SELECT pg_notify($1, $2)', [this.#channel, payload]).catch((error: unknown) => {
      this.#trouble(error);
    });
  }

  override async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  async #listen(): Promise<void> {
    const client = new pg.Client(this.#config);
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, new Error('connection ended')));
    client.on('notification', (message) => {
      if (message.channel !== this.#channel) return;
      const decoded = decodeSignal(message.payload);
      if (decoded && decoded.node !== this.#node) this.deliver(decoded.signal);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      client.removeAllListeners();
      // A dead connection may still report errors: never unhandled.
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#retryMs = 100;
    this.#failing = false;
  }

  #lost(client: pg.Client, error: unknown): void {
    if (this.#client !== client) return;
    this.#client = null;
    client.removeAllListeners();
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.#closed) return;
    this.#trouble(error);
    this.#reconnectLater();
  }

  #reconnectLater(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      this.#listen().then(
        // What was sent while away is lost: everyone re-reads now.
        () => this.deliver({ kind: 'resync' }),
        (error: unknown) => {
          this.#trouble(error);
          this.#retryMs = Math.min(this.#retryMs * 2, this.#maxRetryMs);
          this.#reconnectLater();
        },
      );
    }, this.#retryMs);
    this.#retry.unref();
  }

  /** Reports the first error of an outage; the rest of it stays quiet. */
  #trouble(error: unknown): void {
    if (this.#failing) return;
    this.#failing = true;
    this.#onError(error);
  }
}
