/**
 * `openSatchel`: the engine on a data directory, as a `Satchel`. Its stores come from a small
 * configuration (store/open-stores.ts; default: SQLite file + blob directory in `data`) or are
 * injected; clock and limits can be injected too. Defaults are the durable ones.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SatchelError } from '@satchel/client/errors.js';
import { AuditLog } from '../audit/audit-log.js';
import { actorOf, bootstrapAdmin } from '../auth/access.js';
import {
  DEFAULT_NAME_PROBE_LIMITS,
  type NameProbeLimits,
  NameProbes,
} from '../auth/name-probes.js';
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
import { embeddedStores, openBlobs, openMetadata, type StoreConfig } from '../store/open-stores.js';
import { SecretBox, WEBHOOK_KEY_FILE } from '../webhooks/secret-box.js';
import { AllowList } from '../webhooks/ssrf.js';
import { webhookServices } from '../webhooks/webhooks.js';
import { type EngineServices, LocalSatchel } from './local-satchel.js';
import type { SatchelEngine } from './satchel-engine.js';

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
  const store = options.metadata ?? openMetadata(config.metadata);
  const blobs = options.blobs ?? (await openBlobs(config.blobs));
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
  const waiters = new LockWaiters({ clock });
  const changes = new ChangeNotifier();
  const search = new SearchIndex({
    store,
    blobs,
    committer,
    embeddings: options.embeddings,
    llm: options.llm,
  });
  changes.subscribe((workspace) => search.schedule(workspace));
  const webhooks = webhookServices(
    webhookAllow,
    new SecretBox(root ? join(root, WEBHOOK_KEY_FILE) : null),
  );
  const grepWorkers = new GrepWorkers();
  const nameProbes = new NameProbes(options.nameProbes ?? DEFAULT_NAME_PROBE_LIMITS, clock);
  let closed = false;
  const services: EngineServices = {
    store,
    blobs,
    committer,
    audit,
    waiters,
    changes,
    clock,
    limits,
    search,
    webhooks,
    grepWorkers,
    nameProbes,
    close: async () => {
      if (closed) return;
      closed = true;
      await grepWorkers.close();
      // Attempts in flight are recorded before the database closes.
      await webhooks.dispatcher?.stop();
      waiters.close();
      changes.close();
      // The index step under way commits (or not) before the database closes.
      await search.close();
      await audit.close();
      await store.close();
    },
  };
  return new LocalSatchel(services, actorOf(admin, null), createdKey);
}
