/**
 * `openSatchel`: the engine on a data directory, as a `Satchel`. Its stores come from a small
 * configuration (store/open-stores.ts; default: SQLite file + blob directory in `data`) or are
 * injected; clock and limits can be injected too. Defaults are the durable ones.
 */

import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SatchelError } from '@satchel/client/errors.js';
import { AuditLog } from '../audit/audit-log.js';
import { RefusalLog } from '../audit/refusal-log.js';
import { actorOf, bootstrapAdmin } from '../auth/access.js';
import { KeyCache } from '../auth/key-cache.js';
import {
  DEFAULT_NAME_PROBE_LIMITS,
  type NameProbeLimits,
  NameProbes,
} from '../auth/name-probes.js';
import { RateBudgets } from '../auth/rate-budgets.js';
import { ChangeNotifier } from '../kernel/change-notifier.js';
import type { EngineLimits } from '../kernel/context.js';
import { LockWaiters } from '../locks/locks.js';
import type { EmbeddingProvider } from '../search/embeddings.js';
import { GrepWorkers } from '../search/grep-workers.js';
import { SearchIndex } from '../search/indexer.js';
import type { ChatProvider } from '../search/llm.js';
import type { BlobStore } from '../store/blob-store.js';
import { GroupCommitter } from '../store/group-commit.js';
import type { MetadataStore } from '../store/metadata/metadata-store.js';
import {
  embeddedStores,
  openBlobs,
  openMetadata,
  openSignals,
  type StoreConfig,
} from '../store/open-stores.js';
import { LocalSignals, type Signals } from '../store/signals.js';
import { SecretBox, WEBHOOK_KEY_FILE } from '../webhooks/secret-box.js';
import { AllowList } from '../webhooks/ssrf.js';
import { webhookServices } from '../webhooks/webhooks.js';
import { type EngineServices, LocalSatchel } from './local-satchel.js';
import type { SatchelEngine } from './satchel-engine.js';
import {
  DEFAULT_MAX_URL_SECONDS,
  DEFAULT_URL_SECONDS,
  type TransferSettings,
} from './transfer-urls.js';
import { DEFAULT_UPLOAD_IDLE_SECONDS } from './uploads.js';

export const DEFAULT_LIMITS: EngineLimits = {
  maxFileSize: 5 * 1024 ** 3,
  inlineThreshold: 64 * 1024,
  maxTextBytes: 16 * 1024 * 1024,
};

export interface OpenSatchelOptions {
  /** Data directory, created if missing; ":memory:" for a throwaway engine (tests). */
  readonly data: string;
  readonly limits?: Partial<EngineLimits>;
  /** Milliseconds since the epoch; injectable for tests. */
  readonly clock?: () => number;
  /**
   * How many CONFLICTs on workspace names it may not see a principal may cause per window
   * before its creates are RATE_LIMITED (auth/name-probes.ts). Default 20 per hour.
   */
  readonly nameProbes?: NameProbeLimits;
  /**
   * Which stores to open; by default the embedded ones in `data` (a SQLite file and a blob
   * directory), or in memory for ":memory:". Each part may be given alone.
   */
  readonly stores?: Partial<StoreConfig>;
  /** An already open content store; wins over `stores.blobs`. */
  readonly blobs?: BlobStore;
  /** An already open metadata store; wins over `stores.metadata`. */
  readonly metadata?: MetadataStore;
  /** Delay within which audit entries of reads and refusals are committed (≤ 100 ms). */
  readonly auditFlushMs?: number;
  /**
   * How many refused keys and rate-limited calls are audited one by one: per frontend and code,
   * `perWindow` (default 20) per `windowMs` (default 60,000), then one summary entry per window.
   */
  readonly refusalAudit?: { readonly perWindow?: number; readonly windowMs?: number };
  /**
   * Hosts, addresses and CIDRs webhooks may be delivered to although they are not public
   * (e.g. `127.0.0.1`, `10.0.0.0/8`, `hooks.internal`); INVALID_INPUT for a malformed entry.
   */
  readonly webhookAllow?: readonly string[];
  /**
   * Computes passage vectors for hybrid search (docs/search.md). Without one, search is BM25
   * only and nothing is sent anywhere.
   */
  readonly embeddings?: EmbeddingProvider;
  /** Answers `ask` from retrieved passages. Without one, `ask` returns the passages. */
  readonly llm?: ChatProvider;
  /**
   * How long an authenticated key is remembered (ms; default 2000, 0: never). A revocation
   * reaches every node at once through `signals`; the window bounds a node that missed it.
   */
  readonly keyCacheMs?: number;
  /**
   * How this node hears about commits and lock releases on other nodes of the same database;
   * by default only its own (store/signals.ts). Closed with the engine.
   */
  readonly signals?: Signals;
  /**
   * The key that seals webhook signing secrets (`parseWebhookKey`); by default
   * `<data>/webhook.key`. Required on a shared database: every node needs the same key.
   */
  readonly webhookKey?: Buffer;
  /**
   * Signed transfer URLs and resumable uploads: `publicUrl` is the base of the URLs
   * (`SATCHEL_PUBLIC_URL`; unset: relative, the API adds the request's origin), URL lifetimes
   * (default 900 s, at most 86,400 s), and how long an idle upload is kept (default 24 h).
   */
  readonly transfers?: Partial<TransferSettings>;
}

export { BLOBS_DIR, DATABASE_FILE } from '../store/open-stores.js';
/** The admin key written at first start (CONTRACT.md), mode 0600. */
export const ADMIN_KEY_FILE = 'admin.key';
/** Newest audit entry (index, hash), kept outside the database so a cut-off tail shows. */
export const AUDIT_CHECKPOINT_FILE = 'audit.checkpoint';

/**
 * Opens (creating on first use) the engine on `options.data`, acting as the data directory's
 * admin; `engine.as(await engine.authenticate(key))` acts as someone else. Refuses to run if
 * the database cannot commit durably (WAL and synchronous=FULL); migrates the schema; on an
 * empty data directory creates the admin principal and key (`<data>/admin.key`).
 */
export async function openSatchel(options: OpenSatchelOptions): Promise<SatchelEngine> {
  const limits: EngineLimits = { ...DEFAULT_LIMITS, ...options.limits };
  if (limits.inlineThreshold > limits.maxFileSize) {
    throw new SatchelError('INVALID_INPUT', 'inlineThreshold must not exceed maxFileSize');
  }
  const webhookAllow = AllowList.parse(options.webhookAllow);
  const memory = options.data === ':memory:';
  const root = memory ? null : resolve(options.data);
  if (root) await mkdir(root, { recursive: true, mode: 0o700 });
  const config: StoreConfig = { ...embeddedStores(root), ...options.stores };
  const store = options.metadata ?? (await openMetadata(config.metadata));
  let opened: Signals | undefined;
  let openedBlobs: BlobStore | undefined;
  try {
    // Wake-ups between the nodes on one database (one process: delivered in place).
    const signals =
      options.signals ??
      (options.metadata === undefined ? await openSignals(config.metadata) : new LocalSignals());
    opened = signals;
    const blobs = options.blobs ?? (await openBlobs(config.blobs));
    if (options.blobs === undefined) openedBlobs = blobs;
    await store.migrate();
    await store.startLockEpoch();
    const clock = options.clock ?? Date.now;
    const { admin, createdKey } = await bootstrapAdmin(
      store,
      root ? join(root, ADMIN_KEY_FILE) : null,
      clock(),
    );
    const committer = new GroupCommitter(store);
    const audit = new AuditLog({
      store,
      run: (op) => committer.run(op),
      checkpointFile: root ? join(root, AUDIT_CHECKPOINT_FILE) : null,
      ...(options.auditFlushMs === undefined ? {} : { flushDelayMs: options.auditFlushMs }),
    });
    const refusals = new RefusalLog({
      record: (input) => audit.record(input),
      clock,
      ...options.refusalAudit,
    });
    const waiters = new LockWaiters({ clock, signals });
    const keys = new KeyCache(signals, options.keyCacheMs);
    const changes = new ChangeNotifier(signals);
    const search = new SearchIndex({
      store,
      blobs,
      committer,
      embeddings: options.embeddings,
      llm: options.llm,
    });
    changes.subscribe((workspace) => search.schedule(workspace));
    const secrets = new SecretBox(
      options.webhookKey
        ? { key: options.webhookKey }
        : root
          ? { file: join(root, WEBHOOK_KEY_FILE) }
          : {},
    );
    if (store.dialect.name === 'postgres') await sameWebhookKey(store, secrets);
    const webhooks = webhookServices(webhookAllow, secrets);
    const grepWorkers = new GrepWorkers();
    const rates = new RateBudgets({
      clock,
      // Nodes that share a PostgreSQL database share their budgets; one process counts alone.
      shared: store.dialect.name === 'postgres' ? { committer } : null,
    });
    const nameProbes = new NameProbes(options.nameProbes ?? DEFAULT_NAME_PROBE_LIMITS, rates);

    let closed = false;
    const services: EngineServices = {
      store,
      blobs,
      committer,
      audit,
      refusals,
      keys,
      waiters,
      changes,
      clock,
      limits,
      search,
      webhooks,
      grepWorkers,
      rates,
      nameProbes,
      transfers: {
        publicUrl: null,
        defaultUrlSeconds: DEFAULT_URL_SECONDS,
        maxUrlSeconds: DEFAULT_MAX_URL_SECONDS,
        uploadIdleSeconds: DEFAULT_UPLOAD_IDLE_SECONDS,
        ...options.transfers,
      },
      close: async () => {
        if (closed) return;
        closed = true;
        await grepWorkers.close();
        // Attempts in flight are recorded before the database closes.
        await webhooks.dispatcher?.stop();
        waiters.close();
        keys.close();
        changes.close();
        await signals.close();
        // The index step under way commits (or not) before the database closes.
        await search.close();
        await rates.close();
        refusals.close();
        await audit.close();
        await store.close();
        // Only a store this engine opened: one passed in belongs to the caller.
        if (options.blobs === undefined) blobs.close?.();
      },
    };
    return new LocalSatchel(services, actorOf(admin, null), createdKey);
  } catch (error) {
    // A failed start leaves nothing open that would keep the process alive.
    if (options.signals === undefined) await opened?.close().catch(() => undefined);
    if (options.metadata === undefined) await store.close().catch(() => undefined);
    openedBlobs?.close?.();
    throw error;
  }
}

/**
 * On a database several nodes share, every node must seal webhook secrets with the same key:
 * the first node records its key's fingerprint, a node with another key refuses to start.
 */
async function sameWebhookKey(store: MetadataStore, secrets: SecretBox): Promise<void> {
  const mine = await secrets.fingerprint();
  const recorded = await store.setting('webhook_key_fingerprint', mine);
  if (recorded !== mine) {
    throw new SatchelError(
      'INVALID_INPUT',
      `this node's webhook key (fingerprint ${mine}) is not the one the database's webhooks are ` +
        `sealed with (${recorded}): set SATCHEL_WEBHOOK_KEY to the same value on every node (docs/deploy.md)`,
      { field: 'webhookKey' },
    );
  }
}
