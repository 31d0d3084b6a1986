/**
 * The engine behind the Satchel interface, acting as one actor. Every method follows the same
 * path: validate names, authorise (the one `authorize` function), run the operation, and audit
 * the call — inside the mutation's own transaction for changes, group-committed within 100 ms
 * for reads and refusals (DESIGN.md, Audit log).
 */
import type { AuditInput, AuditLog } from '../audit/audit-log.js';
import * as accessOps from '../auth/access.js';
import type { Actor } from '../auth/actor.js';
import {
  authorize,
  authorizeGlobal,
  effectiveRole,
  type GlobalAction,
  type WorkspaceAction,
} from '../auth/authorize.js';
import { listMembers, removeMember, setMember } from '../auth/members.js';
import {
  acceptTransfer,
  cancelTransfer,
  listTransfers,
  offerTransfer,
  transferWorkspace,
} from '../auth/transfers.js';
import { isSatchelError, SatchelError } from '../errors.js';
import {
  acquireLock,
  breakLock,
  type LockWaiters,
  listLocks,
  releaseLock,
  renewLock,
} from '../locks/locks.js';
import { normalizePath, validateWorkspaceName } from '../paths.js';
import type { BatchFile, Content, FileStream, Satchel, SatchelEngine } from '../satchel.js';
import type * as S from '../schemas.js';
import type { BlobStore } from '../store/blob-store.js';
import type { GroupCommitter } from '../store/group-commit.js';
import type { MetadataStore, MetadataTx } from '../store/metadata/metadata-store.js';
import { type ChangeNotifier, listChanges } from './changes.js';
import type { EngineContext, EngineLimits } from './context.js';
import { requireWorkspace } from './context.js';
import { editFile } from './edit.js';
import { fsck } from './fsck.js';
import { diff, listVersions } from './history.js';
import { list, readFile, readText, stat } from './read.js';
import { copy, move, remove } from './tree.js';
import { createWorkspace, deleteWorkspace, getWorkspace, listWorkspaces } from './workspaces.js';
import { appendFile, mkdir, restore, writeFile, writeFiles } from './write.js';

/** Everything the engine shares across actors. */
export interface EngineServices {
  readonly store: MetadataStore;
  readonly blobs: BlobStore;
  readonly committer: GroupCommitter;
  readonly audit: AuditLog;
  readonly waiters: LockWaiters;
  readonly changes: ChangeNotifier;
  readonly clock: () => number;
  readonly limits: EngineLimits;
  readonly close: () => Promise<void>;
}

interface Call {
  /** Method name, recorded as the audit entry's action. */
  readonly action: string;
  readonly workspace: string | null;
  readonly path: string | null;
  readonly session: string | null;
}

type Check = (ctx: EngineContext) => Promise<void>;

const REFUSALS = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'LOCKED', 'RATE_LIMITED']);

function sessionOf(options: unknown): string | null {
  const session = (options as { session?: unknown } | undefined)?.session;
  return typeof session === 'string' ? session.slice(0, 200) : null;
}

/** Path as recorded in the audit log: canonical when valid, else the raw input, bounded. */
function auditPath(path: unknown): string | null {
  if (typeof path !== 'string') return null;
  try {
    return normalizePath(path);
  } catch {
    return path.slice(0, 300);
  }
}

/** The seq a mutation's result names (the newest, for a batch), or null. */
function seqOf(result: unknown): number | null {
  if (Array.isArray(result)) {
    const seqs = result.map(seqOf).filter((seq): seq is number => seq !== null);
    return seqs.length > 0 ? Math.max(...seqs) : null;
  }
  const value = result as { seq?: unknown; info?: { seq?: unknown } } | null;
  if (typeof value?.seq === 'number') return value.seq;
  return typeof value?.info?.seq === 'number' ? value.info.seq : null;
}

export class LocalSatchel implements SatchelEngine {
  constructor(
    private readonly services: EngineServices,
    private readonly actor: Actor,
    readonly createdAdminKey: string | null = null,
  ) {}

  as(actor: Actor): Satchel {
    return new LocalSatchel(this.services, actor);
  }

  authenticate(key: string): Promise<Actor> {
    return accessOps.authenticate(this.services.store, key, this.services.clock());
  }

  /** A context whose commits carry this call's audit entry in the same transaction. */
  #context(call: Call, audited: { done: boolean }): EngineContext {
    const { store, blobs, committer, audit, clock, limits } = this.services;
    const entry = (seq: number | null): AuditInput => ({
      time: clock(),
      actor: this.actor.name,
      session: call.session,
      action: call.action,
      workspace: call.workspace,
      path: call.path,
      seq,
      outcome: 'ok',
      code: null,
    });
    return {
      store,
      blobs,
      clock,
      limits,
      actor: this.actor,
      commit: async <T>(
        op: (tx: MetadataTx) => Promise<T>,
        options?: { durable?: boolean },
      ): Promise<T> => {
        const result = await committer.run(async (tx) => {
          const value = await op(tx);
          // An operation that declines (null) commits nothing worth an entry.
          if (value !== null) await audit.appendInTx(tx, entry(seqOf(value)));
          return value;
        }, options);
        if (result !== null) {
          audited.done = true;
          if (call.workspace !== null && seqOf(result) !== null) {
            this.services.changes.notify(call.workspace);
          }
          // Not awaited: the checkpoint trails the log by at most a few entries after a crash,
          // and a write should not pay for a second file sync.
          void audit.checkpoint();
        }
        return result;
      },
    };
  }

  async #run<T>(call: Call, check: Check, fn: (ctx: EngineContext) => Promise<T>): Promise<T> {
    const audited = { done: false };
    const ctx = this.#context(call, audited);
    const record = (outcome: AuditInput['outcome'], code: string | null) =>
      void this.services.audit.record({
        time: this.services.clock(),
        actor: this.actor.name,
        session: call.session,
        action: call.action,
        workspace: call.workspace,
        path: call.path,
        seq: null,
        outcome,
        code,
      });
    try {
      await check(ctx);
      const result = await fn(ctx);
      if (!audited.done) record('ok', null);
      return result;
    } catch (error) {
      const code = isSatchelError(error) ? error.code : 'INTERNAL';
      record(REFUSALS.has(code) ? 'refused' : 'error', code);
      throw error;
    }
  }

  /** Authorises `action` in `workspace`, for changes beneath `paths`. */
  #in(workspace: string, action: WorkspaceAction, paths: readonly unknown[] = []): Check {
    return async (ctx) => {
      validateWorkspaceName(workspace);
      const ws = await requireWorkspace(ctx.store, workspace);
      await authorize(
        ctx.store,
        this.actor,
        action,
        ws,
        paths.map((p) => normalizePath(p)),
      );
    };
  }

  #global(action: GlobalAction): Check {
    return async () => authorizeGlobal(this.actor, action);
  }

  #call(action: string, workspace: string | null, path: unknown, options?: unknown): Call {
    return { action, workspace, path: auditPath(path), session: sessionOf(options) };
  }

  // Workspaces

  createWorkspace(name: string, options?: S.CallOptions): Promise<S.Workspace> {
    const call = this.#call('createWorkspace', name, null, options);
    return this.#run(call, this.#global('workspace.create'), (ctx) =>
      createWorkspace(ctx, name, options),
    );
  }
  listWorkspaces(options?: S.PageOptions): Promise<S.Page<S.Workspace>> {
    const call = this.#call('listWorkspaces', null, null);
    return this.#run(
      call,
      async () => undefined,
      (ctx) =>
        listWorkspaces(
          ctx,
          options,
          async (row) => (await effectiveRole(ctx.store, this.actor, row)) !== null,
        ),
    );
  }
  getWorkspace(name: string): Promise<S.WorkspaceInfo> {
    const call = this.#call('getWorkspace', name, null);
    return this.#run(call, this.#in(name, 'workspace.read'), (ctx) => getWorkspace(ctx, name));
  }
  deleteWorkspace(name: string, options?: S.CallOptions): Promise<void> {
    const call = this.#call('deleteWorkspace', name, null, options);
    return this.#run(call, this.#in(name, 'workspace.delete'), (ctx) =>
      deleteWorkspace(ctx, name, options),
    );
  }

  // Files

  writeFile(
    ws: string,
    path: string,
    content: Content,
    options?: S.WriteOptions,
  ): Promise<S.FileInfo> {
    const call = this.#call('writeFile', ws, path, options);
    return this.#run(call, this.#in(ws, 'file.write', [path]), (ctx) =>
      writeFile(ctx, ws, path, content, options),
    );
  }
  writeFiles(
    ws: string,
    files: readonly BatchFile[],
    options?: S.CallOptions,
  ): Promise<S.FileInfo[]> {
    const call = this.#call('writeFiles', ws, null, options);
    const paths = Array.isArray(files) ? files.map((f) => f?.path) : [];
    return this.#run(call, this.#in(ws, 'file.write', paths), (ctx) =>
      writeFiles(ctx, ws, files, options),
    );
  }
  appendFile(
    ws: string,
    path: string,
    content: Content,
    options?: S.AppendOptions,
  ): Promise<S.FileInfo> {
    const call = this.#call('appendFile', ws, path, options);
    return this.#run(call, this.#in(ws, 'file.write', [path]), (ctx) =>
      appendFile(ctx, ws, path, content, options),
    );
  }
  readFile(ws: string, path: string, options?: S.ReadOptions): Promise<FileStream> {
    const call = this.#call('readFile', ws, path, options);
    return this.#run(call, this.#in(ws, 'file.read'), (ctx) => readFile(ctx, ws, path, options));
  }
  readText(ws: string, path: string, options?: S.ReadTextOptions): Promise<S.TextSlice> {
    const call = this.#call('readText', ws, path, options);
    return this.#run(call, this.#in(ws, 'file.read'), (ctx) => readText(ctx, ws, path, options));
  }
  stat(ws: string, path: string, options?: { version?: number }): Promise<S.FileInfo> {
    const call = this.#call('stat', ws, path);
    return this.#run(call, this.#in(ws, 'file.read'), (ctx) => stat(ctx, ws, path, options));
  }
  list(ws: string, options?: S.ListOptions): Promise<S.ListPage> {
    const call = this.#call('list', ws, options?.path ?? '/', options);
    return this.#run(call, this.#in(ws, 'file.read'), (ctx) => list(ctx, ws, options));
  }
  mkdir(ws: string, path: string, options?: S.MutationOptions): Promise<S.FileInfo> {
    const call = this.#call('mkdir', ws, path, options);
    return this.#run(call, this.#in(ws, 'file.write', [path]), (ctx) =>
      mkdir(ctx, ws, path, options),
    );
  }
  remove(ws: string, path: string, options?: S.RemoveOptions): Promise<S.RemoveResult> {
    const call = this.#call('remove', ws, path, options);
    return this.#run(call, this.#in(ws, 'file.write', [path]), (ctx) =>
      remove(ctx, ws, path, options),
    );
  }
  move(ws: string, from: string, to: string, options?: S.MoveOptions): Promise<S.FileInfo> {
    const call = this.#call('move', ws, from, options);
    return this.#run(call, this.#in(ws, 'file.write', [from, to]), (ctx) =>
      move(ctx, ws, from, to, options),
    );
  }
  copy(ws: string, from: string, to: string, options?: S.CopyOptions): Promise<S.FileInfo> {
    const call = this.#call('copy', ws, to, options);
    return this.#run(call, this.#in(ws, 'file.write', [to]), (ctx) =>
      copy(ctx, ws, from, to, options),
    );
  }
  editFile(
    ws: string,
    path: string,
    edits: readonly S.Edit[],
    options?: S.EditOptions,
  ): Promise<S.EditResult> {
    const call = this.#call('editFile', ws, path, options);
    return this.#run(call, this.#in(ws, 'file.write', [path]), (ctx) =>
      editFile(ctx, ws, path, edits, options),
    );
  }
  listVersions(ws: string, path: string, options?: S.PageOptions): Promise<S.Page<S.Version>> {
    const call = this.#call('listVersions', ws, path);
    return this.#run(call, this.#in(ws, 'file.read'), (ctx) =>
      listVersions(ctx, ws, path, options),
    );
  }
  diff(ws: string, path: string, options?: S.DiffOptions): Promise<S.DiffResult> {
    const call = this.#call('diff', ws, path, options);
    return this.#run(call, this.#in(ws, 'file.read'), (ctx) => diff(ctx, ws, path, options));
  }
  restore(ws: string, path: string, seq: number, options?: S.WriteOptions): Promise<S.FileInfo> {
    const call = this.#call('restore', ws, path, options);
    return this.#run(call, this.#in(ws, 'file.write', [path]), (ctx) =>
      restore(ctx, ws, path, seq, options),
    );
  }

  listChanges(ws: string, options?: S.ListChangesOptions): Promise<S.ChangesPage> {
    const call = this.#call('listChanges', ws, options?.path ?? null, options);
    return this.#run(call, this.#in(ws, 'file.read'), (ctx) =>
      listChanges(ctx, this.services.changes, ws, options),
    );
  }

  // Locks

  acquireLock(ws: string, options: S.AcquireLock): Promise<S.Lock> {
    const call = this.#call('acquireLock', ws, options?.path, options);
    return this.#run(call, this.#in(ws, 'lock.write', [options?.path]), (ctx) =>
      acquireLock(ctx, this.services.waiters, ws, options),
    );
  }
  renewLock(ws: string, lockId: string, options?: { ttlSeconds?: number }): Promise<S.Lock> {
    const call = this.#call('renewLock', ws, null);
    return this.#run(call, this.#in(ws, 'lock.write'), (ctx) =>
      renewLock(ctx, this.services.waiters, ws, lockId, options),
    );
  }
  releaseLock(ws: string, lockId: string): Promise<void> {
    const call = this.#call('releaseLock', ws, null);
    return this.#run(call, this.#in(ws, 'lock.write'), (ctx) =>
      releaseLock(ctx, this.services.waiters, ws, lockId),
    );
  }
  breakLock(ws: string, lockId: string): Promise<S.Lock> {
    const call = this.#call('breakLock', ws, null);
    return this.#run(call, this.#in(ws, 'lock.break'), (ctx) =>
      breakLock(ctx, this.services.waiters, ws, lockId),
    );
  }
  listLocks(ws: string, options?: { path?: string }): Promise<S.Lock[]> {
    const call = this.#call('listLocks', ws, options?.path ?? null);
    return this.#run(call, this.#in(ws, 'lock.read'), (ctx) => listLocks(ctx, ws, options));
  }

  // Principals, keys, members, transfers

  whoami(): Promise<S.WhoAmI> {
    return this.#run(
      this.#call('whoami', null, null),
      async () => undefined,
      (ctx) => accessOps.whoami(ctx),
    );
  }
  createPrincipal(input: S.CreatePrincipal): Promise<S.Principal> {
    const call = this.#call('createPrincipal', null, null);
    return this.#run(call, this.#global('admin'), (ctx) => accessOps.createPrincipal(ctx, input));
  }
  listPrincipals(options?: S.PageOptions): Promise<S.Page<S.Principal>> {
    const call = this.#call('listPrincipals', null, null);
    return this.#run(call, this.#global('admin'), (ctx) => accessOps.listPrincipals(ctx, options));
  }
  createKey(input: S.CreateKey = {}): Promise<S.CreatedKey> {
    const call = this.#call('createKey', null, null);
    return this.#run(
      call,
      async () => undefined,
      (ctx) => accessOps.createKey(ctx, input),
    );
  }
  listKeys(options?: { all?: boolean }): Promise<S.KeyInfo[]> {
    const call = this.#call('listKeys', null, null);
    return this.#run(
      call,
      async () => undefined,
      (ctx) => accessOps.listKeys(ctx, options),
    );
  }
  revokeKey(id: string): Promise<S.KeyInfo> {
    const call = this.#call('revokeKey', null, null);
    return this.#run(
      call,
      async () => undefined,
      (ctx) => accessOps.revokeKey(ctx, id),
    );
  }
  listMembers(ws: string): Promise<S.Member[]> {
    const call = this.#call('listMembers', ws, null);
    return this.#run(call, this.#in(ws, 'member.read'), (ctx) => listMembers(ctx, ws));
  }
  setMember(ws: string, principal: string, role: S.Role): Promise<S.Member> {
    const call = this.#call('setMember', ws, null);
    return this.#run(call, this.#in(ws, 'member.manage'), (ctx) =>
      setMember(ctx, ws, principal, role),
    );
  }
  removeMember(ws: string, principal: string): Promise<void> {
    const call = this.#call('removeMember', ws, null);
    return this.#run(call, this.#in(ws, 'member.manage'), (ctx) =>
      removeMember(ctx, ws, principal),
    );
  }
  offerTransfer(ws: string, options?: S.OfferTransfer): Promise<S.TransferOffer> {
    const call = this.#call('offerTransfer', ws, null, options);
    return this.#run(call, this.#in(ws, 'transfer.manage'), (ctx) =>
      offerTransfer(ctx, ws, options),
    );
  }
  listTransfers(ws: string): Promise<S.Transfer[]> {
    const call = this.#call('listTransfers', ws, null);
    return this.#run(call, this.#in(ws, 'transfer.manage'), (ctx) => listTransfers(ctx, ws));
  }
  cancelTransfer(ws: string, id: string): Promise<S.Transfer> {
    const call = this.#call('cancelTransfer', ws, null);
    return this.#run(call, this.#in(ws, 'transfer.manage'), (ctx) => cancelTransfer(ctx, ws, id));
  }
  async acceptTransfer(code: string): Promise<S.Transfer> {
    const workspace = await transferWorkspace(this.services.store, code);
    const call = this.#call('acceptTransfer', workspace, null);
    return this.#run(call, this.#global('transfer.accept'), (ctx) => acceptTransfer(ctx, code));
  }

  // Audit and maintenance

  async listAudit(options: S.AuditQuery = {}): Promise<S.Page<S.AuditEntryOut>> {
    const workspace = options.workspace ?? null;
    const call = this.#call('listAudit', workspace, null);
    const check = workspace === null ? this.#global('admin') : this.#in(workspace, 'audit.read');
    return this.#run(call, check, async () => {
      // Entries of reads and refusals wait up to 100 ms for their commit: include them.
      await this.services.audit.flush();
      const after = options.cursor === undefined ? undefined : Number(options.cursor);
      if (after !== undefined && !Number.isSafeInteger(after)) {
        throw new SatchelError('INVALID_INPUT', 'invalid cursor', { field: 'cursor' });
      }
      const page = await this.services.audit.list({
        ...(workspace === null ? {} : { workspace }),
        ...(after === undefined ? {} : { after }),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      });
      return {
        nextCursor: page.nextCursor,
        items: page.items.map((e) => ({
          idx: e.idx,
          time: new Date(e.time).toISOString(),
          actor: e.actor,
          session: e.session,
          action: e.action,
          workspace: e.workspace,
          path: e.path,
          seq: e.seq,
          outcome: e.outcome,
          code: e.code,
          prevHash: e.prevHash,
          hash: e.hash,
        })),
      };
    });
  }
  verifyAudit(): Promise<S.AuditVerificationOut> {
    const call = this.#call('verifyAudit', null, null);
    return this.#run(call, this.#global('admin'), async () => {
      await this.services.audit.flush();
      const result = await this.services.audit.verify();
      return result.ok
        ? {
            ok: true,
            entries: result.entries,
            index: null,
            reason: null,
            checkpoint: result.checkpoint,
          }
        : {
            ok: false,
            entries: result.entries,
            index: result.index,
            reason: result.reason,
            checkpoint: null,
          };
    });
  }
  async *exportAudit(): AsyncIterable<string> {
    const call = this.#call('exportAudit', null, null);
    await this.#run(call, this.#global('admin'), async () => this.services.audit.flush());
    yield* this.services.audit.exportJsonl();
  }
  fsck(): Promise<S.FsckReport> {
    return this.#run(this.#call('fsck', null, null), this.#global('admin'), (ctx) => fsck(ctx));
  }
  close(): Promise<void> {
    return this.services.close();
  }
}
