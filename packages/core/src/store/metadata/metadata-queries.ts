/**
 * Metadata reads usable both outside and inside a transaction (portable Kysely), and the areas
 * (`locks`, `webhooks`, …) `MetadataStore` and `MetadataTx` share (shape: metadata-store.ts).
 */
import { descendantRange } from '@satchel/client/paths.js';
import type { Role } from '@satchel/client/schemas/access.js';
import { type Kysely, sql } from 'kysely';
import { AccessQueries } from './access-queries.js';
import { AuditQueries } from './audit-queries.js';
import { CommentQueries } from './comment-queries.js';
import { ContentQueries } from './content-queries.js';
import type { SqlDialectInfo } from './dialect.js';
import { toBlob, toEntry, toVersion, toWorkspace } from './file-tree-rows.js';
import { ForkQueries } from './fork-queries.js';
import { FsckQueries } from './fsck-queries.js';
import { GcQueries } from './gc-queries.js';
import {
  BLOB,
  changesPage,
  ENTRY,
  ENTRY_WITH_BLOB,
  entriesWithBlobs,
  toEntryWithBlob,
  toWorkspaceRoleEntry,
  toWorkspaceWithRole,
  WORKSPACE_BY_NAME,
  WORKSPACE_ROLE_ENTRY,
  WORKSPACE_WITH_ROLE,
} from './hot-queries.js';
import { InvitationQueries } from './invitation-queries.js';
import { LockQueries } from './lock-queries.js';
import { MemberQueries } from './member-queries.js';
import { PastQueries } from './past-queries.js';
import { RateQueries } from './rate-queries.js';
import type { BlobRecord, EntryRecord, VersionRecord, WorkspaceRecord } from './records.js';
import { SearchQueries } from './search-queries.js';
import { ShareLinkQueries } from './share-link-queries.js';
import type { Database } from './tables.js';
import { TransferQueries } from './transfer-queries.js';
import { UploadQueries } from './upload-queries.js';
import { UsageQueries } from './usage-queries.js';
import { WebSessionQueries } from './web-session-queries.js';
import { WebhookQueries } from './webhook-queries.js';
import { oneOrTwoEntries } from './write-queries.js';

/** The reads and areas every store and transaction has (the file's header). */
export class MetadataQueries {
  /** Principals and API keys, with key lineage (access-queries.ts). */
  readonly access: AccessQueries;
  /** Workspace memberships and roles (member-queries.ts). */
  readonly members: MemberQueries;
  /** Pending invitations to join a workspace (invitation-queries.ts). */
  readonly invitations: InvitationQueries;
  /** Offers to transfer a workspace's ownership (transfer-queries.ts). */
  readonly transfers: TransferQueries;
  /** The audit log's hash chain, append-only (audit-queries.ts). */
  readonly audit: AuditQueries;
  /** Locks: leases, fencing tokens (lock-queries.ts). */
  readonly locks: LockQueries;
  /** Webhooks: subscriptions, the delivery queue, the attempt log (webhook-queries.ts). */
  readonly webhooks: WebhookQueries;
  /** Search: passages, vectors, index state, full-text matching (search-queries.ts). */
  readonly search: SearchQueries;
  /** Rate-limit windows shared by the nodes of one database (rate-queries.ts). */
  readonly rates: RateQueries;
  /** Garbage collection of content: candidates, marks, the collector's lease (gc-queries.ts). */
  readonly gc: GcQueries;
  /** Resumable upload sessions, their parts, used signed URLs (upload-queries.ts). */
  readonly uploads: UploadQueries;
  /** The workspace as it was at a seq, and snapshots naming seqs (past-queries.ts). */
  readonly past: PastQueries;
  /** What each workspace stores: counters kept by triggers (usage-queries.ts). */
  readonly usage: UsageQueries;
  /** Sign-in links and browser sessions of the web app (web-session-queries.ts). */
  readonly webSessions: WebSessionQueries;
  /** Review comments on line ranges of file versions (comment-queries.ts). */
  readonly comments: CommentQueries;
  /** Read-only links for people without an account (share-link-queries.ts). */
  readonly shareLinks: ShareLinkQueries;
  /** Forks: their origin and merge base, the rows that make one (fork-queries.ts). */
  readonly forks: ForkQueries;
  /** What fsck reads: the blob registry, versions without a blob (fsck-queries.ts). */
  readonly fsck: FsckQueries;
  /** Content named by hash: held by which workspaces, registered (content-queries.ts). */
  readonly content: ContentQueries;

  /**
   * `parent`: a store on the same connection this one is a view of (one call's store, `forCall`):
   * its areas are shared, not built again for every call (and what they remember, such as fork
   * points, is kept).
   */
  constructor(
    protected readonly db: Kysely<Database>,
    readonly dialect: SqlDialectInfo,
    parent?: MetadataQueries,
  ) {
    const same = parent?.db === db ? parent : undefined;
    this.access = same?.access ?? new AccessQueries(db, dialect);
    this.members = same?.members ?? new MemberQueries(db);
    this.invitations = same?.invitations ?? new InvitationQueries(db);
    this.transfers = same?.transfers ?? new TransferQueries(db);
    this.audit = same?.audit ?? new AuditQueries(db, dialect);
    this.locks = same?.locks ?? new LockQueries(db, dialect);
    this.webhooks = same?.webhooks ?? new WebhookQueries(db, dialect);
    this.search = same?.search ?? new SearchQueries(db, dialect);
    this.rates = same?.rates ?? new RateQueries(db);
    this.gc = same?.gc ?? new GcQueries(db);
    this.uploads = same?.uploads ?? new UploadQueries(db);
    this.past = same?.past ?? new PastQueries(db, dialect);
    this.usage = same?.usage ?? new UsageQueries(db);
    this.webSessions = same?.webSessions ?? new WebSessionQueries(db);
    this.comments = same?.comments ?? new CommentQueries(db);
    this.shareLinks = same?.shareLinks ?? new ShareLinkQueries(db);
    this.forks = same?.forks ?? new ForkQueries(db);
    this.fsck = same?.fsck ?? new FsckQueries(db);
    this.content = same?.content ?? new ContentQueries(db, dialect);
  }

  /**
   * The query builder, for `testing.ts` only (see `rawDatabase` there); production code never
   * calls it (architecture.test.ts checks that nothing outside store/ imports Kysely).
   */
  static rawDatabase(q: MetadataQueries): Kysely<Database> {
    return q.db;
  }

  async findWorkspace(name: string): Promise<WorkspaceRecord | undefined> {
    const [row] = await WORKSPACE_BY_NAME(this.db, this.dialect, name);
    return row && toWorkspace(row);
  }

  /** The workspace `name` and the role `principalId` holds in it (null: no member): one query. */
  async findWorkspaceWithRole(
    name: string,
    principalId: string,
  ): Promise<{ workspace: WorkspaceRecord; role: Role | null } | undefined> {
    const [row] = await WORKSPACE_WITH_ROLE(this.db, this.dialect, name, principalId);
    return row && toWorkspaceWithRole(row);
  }

  /**
   * The workspace `name`, the role `principalId` holds in it, and the entry at `path` with its
   * blob (undefined: none there): what a read of one file looks up, in one query.
   */
  async findWorkspaceWithRoleAndEntry(
    name: string,
    principalId: string,
    path: string,
  ): Promise<ReturnType<typeof toWorkspaceRoleEntry> | undefined> {
    const [row] = await WORKSPACE_ROLE_ENTRY(this.db, this.dialect, name, principalId, path);
    return row && toWorkspaceRoleEntry(row);
  }

  async listWorkspaces(afterName: string | null, limit: number): Promise<WorkspaceRecord[]> {
    let q = this.db.selectFrom('workspaces').selectAll().orderBy('name').limit(limit);
    if (afterName !== null) q = q.where('name', '>', afterName);
    return (await q.execute()).map(toWorkspace);
  }

  async workspaceStats(
    workspaceId: string,
  ): Promise<{ files: number; directories: number; bytes: number; versions: number }> {
    const entries = await this.db
      .selectFrom('entries')
      .select((eb) => [
        'type',
        eb.fn.countAll<number>().as('count'),
        eb.fn.coalesce(eb.fn.sum<number>('size'), sql<number>`0`).as('bytes'),
      ])
      .where('workspace_id', '=', workspaceId)
      .groupBy('type')
      .execute();
    const versions = await this.db
      .selectFrom('versions')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    const files = entries.find((e) => e.type === 'file');
    const dirs = entries.find((e) => e.type === 'directory');
    return {
      files: Number(files?.count ?? 0),
      directories: Number(dirs?.count ?? 0),
      bytes: Number(files?.bytes ?? 0),
      versions: Number(versions.count),
    };
  }

  async getEntry(workspaceId: string, path: string): Promise<EntryRecord | undefined> {
    const [row] = await ENTRY(this.db, this.dialect, workspaceId, path);
    return row && toEntry(row);
  }

  /** The entry at `path` and, for a file, its blob (undefined if the blob row is missing). */
  async getEntryWithBlob(
    workspaceId: string,
    path: string,
  ): Promise<{ entry: EntryRecord; blob: BlobRecord | undefined } | undefined> {
    const [row] = await ENTRY_WITH_BLOB(this.db, this.dialect, workspaceId, path);
    return row && toEntryWithBlob(row);
  }

  /** The entries that exist among `paths` (at most a few hundred), each with its blob, by path. */
  async getEntriesWithBlobs(
    workspaceId: string,
    paths: readonly string[],
  ): Promise<Map<string, { entry: EntryRecord; blob: BlobRecord | undefined }>> {
    const rows = await entriesWithBlobs(this.db, workspaceId, paths);
    return new Map(rows.map((row) => [row.path, toEntryWithBlob(row)]));
  }

  /** The entries that exist among `paths`, by path. */
  async getEntries(
    workspaceId: string,
    paths: readonly string[],
  ): Promise<Map<string, EntryRecord>> {
    // A file and its parent, every write's case: one compiled statement.
    const [a, b] = paths;
    if (a !== undefined && paths.length <= 2) {
      return oneOrTwoEntries(this.db, this.dialect, workspaceId, [a, b]);
    }
    const rows = await this.db
      .selectFrom('entries')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('path', 'in', paths)
      .execute();
    return new Map(rows.map((row) => [row.path, toEntry(row)]));
  }

  /** Entries directly inside `dir`, or everything beneath it when `recursive`, in path order. */
  async listEntries(
    workspaceId: string,
    dir: string,
    recursive: boolean,
    afterPath: string | null,
    limit: number,
  ): Promise<EntryRecord[]> {
    let q = this.db
      .selectFrom('entries')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('path')
      .limit(limit);
    if (recursive) {
      const { lo, hi } = descendantRange(dir);
      q = q.where('path', '>=', lo).where('path', '<', hi);
    } else {
      q = q.where('parent', '=', dir);
    }
    if (afterPath !== null) q = q.where('path', '>', afterPath);
    return (await q.execute()).map(toEntry);
  }

  async countEntries(workspaceId: string, dir: string, recursive: boolean): Promise<number> {
    let q = this.db
      .selectFrom('entries')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('workspace_id', '=', workspaceId);
    if (recursive) {
      const { lo, hi } = descendantRange(dir);
      q = q.where('path', '>=', lo).where('path', '<', hi);
    } else {
      q = q.where('parent', '=', dir);
    }
    const row = await q.executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** The newest version of `path` (a tombstone if it was deleted last), or one at `seq`. */
  async getVersion(
    workspaceId: string,
    path: string,
    seq?: number,
  ): Promise<VersionRecord | undefined> {
    let q = this.db
      .selectFrom('versions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('path', '=', path);
    q = seq === undefined ? q.orderBy('seq', 'desc').limit(1) : q.where('seq', '=', seq);
    const row = await q.executeTakeFirst();
    return row && toVersion(row);
  }

  /** Versions of `path`, newest first (or oldest first), with seq below `beforeSeq` when given. */
  async listVersions(
    workspaceId: string,
    path: string,
    beforeSeq: number | null,
    limit: number,
    order: 'asc' | 'desc' = 'desc',
  ): Promise<VersionRecord[]> {
    let q = this.db
      .selectFrom('versions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('path', '=', path)
      .orderBy('seq', order)
      .limit(limit);
    if (beforeSeq !== null) q = q.where('seq', '<', beforeSeq);
    return (await q.execute()).map(toVersion);
  }

  /**
   * Versions written after seq `after`, in (seq, path) order — the change feed; with `dir`, only
   * those at or beneath it. `atSeq` returns exactly the versions of one mutation instead.
   */
  async listChanges(
    workspaceId: string,
    options: { after?: number; atSeq?: number; limit?: number; dir?: string },
  ): Promise<VersionRecord[]> {
    const page = await changesPage(this.db, this.dialect, workspaceId, options);
    if (page) return page.map(toVersion);
    let q = this.db
      .selectFrom('versions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('seq')
      .orderBy('path');
    if (options.atSeq !== undefined) q = q.where('seq', '=', options.atSeq);
    if (options.after !== undefined) q = q.where('seq', '>', options.after);
    if (options.limit !== undefined) q = q.limit(options.limit);
    const dir = options.dir;
    if (dir !== undefined && dir !== '/') {
      const { lo, hi } = descendantRange(dir);
      q = q.where((eb) =>
        eb.or([eb('path', '=', dir), eb.and([eb('path', '>=', lo), eb('path', '<', hi)])]),
      );
    }
    return (await q.execute()).map(toVersion);
  }

  /**
   * The first `limit` versions after seq `after` (with `dir`, at or beneath it), cut so that no
   * change (seq) is split: the change at the cut is left for the next call — unless it is the
   * only one, then it comes whole, however large. The change feed and webhook queueing read this.
   */
  async wholeChanges(
    workspaceId: string,
    options: { after: number; limit: number; dir?: string },
  ): Promise<VersionRecord[]> {
    const { after, limit, dir } = options;
    const scope = dir === undefined ? {} : { dir };
    const rows = await this.listChanges(workspaceId, { after, limit: limit + 1, ...scope });
    if (rows.length <= limit) return rows;
    const page = rows.slice(0, limit);
    const lastSeq = Number(page.at(-1)?.seq);
    const whole = page.filter((row) => row.seq !== lastSeq);
    if (whole.length > 0) return whole;
    return this.listChanges(workspaceId, { atSeq: lastSeq, ...scope });
  }

  async getBlob(hash: string): Promise<BlobRecord | undefined> {
    const [row] = await BLOB(this.db, this.dialect, hash);
    return row && toBlob(row);
  }

  /** Whether any version refers to `hash`. */
  async isReferenced(hash: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('versions')
      .select('seq')
      .where('hash', '=', hash)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The newest seq handed out in a workspace; undefined if there is no such workspace. */
  async workspaceSeq(workspaceId: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('workspaces')
      .select('seq')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.seq);
  }

  workspaceNames(): Promise<Pick<WorkspaceRecord, 'id' | 'name'>[]> {
    return this.db.selectFrom('workspaces').select(['id', 'name']).execute();
  }
}
