/**
 * The engine behind the Satchel interface, acting as one actor: the file methods (file-calls.ts)
 * plus locks, principals, keys, members, transfers, the audit log and maintenance. Every method
 * runs through the call machinery of calls.ts: authorise, run, audit.
 */
import * as accessOps from '../auth/access.js';
import type { Actor } from '../auth/actor.js';
import { listMembers, removeMember, setMember } from '../auth/members.js';
import {
  acceptTransfer,
  cancelTransfer,
  listTransfers,
  offerTransfer,
  transferWorkspace,
} from '../auth/transfers.js';
import { SatchelError } from '../errors.js';
import { acquireLock, breakLock, listLocks, releaseLock, renewLock } from '../locks/locks.js';
import type { Satchel, SatchelEngine } from '../satchel.js';
import type * as S from '../schemas.js';
import { ask } from '../search/ask.js';
import { grep } from '../search/grep.js';
import { requireIndexing, searchPassages } from '../search/search.js';
import { countQueued } from '../store/metadata/webhook-queries.js';
import {
  Dispatcher,
  type WebhookDispatcher,
  type WebhookDispatchOptions,
} from '../webhooks/dispatcher.js';
import * as webhookOps from '../webhooks/webhooks.js';
import type { EngineServices } from './calls.js';
import { requireWorkspace } from './context.js';
import { FileCalls } from './file-calls.js';
import { fsck } from './fsck.js';
import { updateWorkspace } from './workspace-settings.js';
import { getWorkspace } from './workspaces.js';

export type { EngineServices } from './calls.js';

/** How long `reindex` rebuilds before it returns; the rest continues in the background. */
const REINDEX_WAIT_MS = 10_000;

/** The engine behind the Satchel interface, acting as one actor. */
export class LocalSatchel extends FileCalls implements SatchelEngine {
  constructor(
    services: EngineServices,
    actor: Actor,
    readonly createdAdminKey: string | null = null,
  ) {
    super(services, actor);
  }

  as(actor: Actor): Satchel {
    return new LocalSatchel(this.services, actor);
  }

  authenticate(key: string): Promise<Actor> {
    return accessOps.authenticate(this.services.store, key, this.services.clock());
  }

  // Locks

  acquireLock(ws: string, options: S.AcquireLock): Promise<S.Lock> {
    const call = this.call('acquireLock', ws, options?.path, options);
    return this.run(call, this.within(ws, 'lock.write', [options?.path]), (ctx) =>
      acquireLock(ctx, this.services.waiters, ws, options),
    );
  }
  renewLock(
    ws: string,
    lockId: string,
    options?: { ttlSeconds?: number } & S.CallOptions,
  ): Promise<S.Lock> {
    const call = this.call('renewLock', ws, null, options);
    return this.run(call, this.within(ws, 'lock.write'), (ctx) =>
      renewLock(ctx, this.services.waiters, ws, lockId, options),
    );
  }
  releaseLock(ws: string, lockId: string, options?: S.CallOptions): Promise<void> {
    const call = this.call('releaseLock', ws, null, options);
    return this.run(call, this.within(ws, 'lock.write'), (ctx) =>
      releaseLock(ctx, this.services.waiters, ws, lockId),
    );
  }
  breakLock(ws: string, lockId: string, options?: S.CallOptions): Promise<S.Lock> {
    const call = this.call('breakLock', ws, null, options);
    return this.run(call, this.within(ws, 'lock.break'), (ctx) =>
      breakLock(ctx, this.services.waiters, ws, lockId),
    );
  }
  listLocks(ws: string, options?: { path?: string }): Promise<S.Lock[]> {
    const call = this.call('listLocks', ws, options?.path ?? null);
    return this.run(call, this.within(ws, 'lock.read'), (ctx) => listLocks(ctx, ws, options));
  }

  // Principals, keys, members, transfers

  whoami(): Promise<S.WhoAmI> {
    return this.run(
      this.call('whoami', null, null),
      async () => undefined,
      (ctx) => accessOps.whoami(ctx),
    );
  }
  createPrincipal(input: S.CreatePrincipal): Promise<S.Principal> {
    const call = this.call('createPrincipal', null, null);
    return this.run(call, this.global('admin'), (ctx) => accessOps.createPrincipal(ctx, input));
  }
  listPrincipals(options?: S.PageOptions): Promise<S.Page<S.Principal>> {
    const call = this.call('listPrincipals', null, null);
    return this.run(call, this.global('admin'), (ctx) => accessOps.listPrincipals(ctx, options));
  }
  createKey(input: S.CreateKey = {}): Promise<S.CreatedKey> {
    const call = this.call('createKey', null, null);
    return this.run(
      call,
      async () => undefined,
      (ctx) => accessOps.createKey(ctx, input),
    );
  }
  listKeys(options?: { all?: boolean }): Promise<S.KeyInfo[]> {
    const call = this.call('listKeys', null, null);
    return this.run(
      call,
      async () => undefined,
      (ctx) => accessOps.listKeys(ctx, options),
    );
  }
  revokeKey(id: string): Promise<S.KeyInfo> {
    const call = this.call('revokeKey', null, null);
    return this.run(
      call,
      async () => undefined,
      (ctx) => accessOps.revokeKey(ctx, id),
    );
  }
  listMembers(ws: string): Promise<S.Member[]> {
    const call = this.call('listMembers', ws, null);
    return this.run(call, this.within(ws, 'member.read'), (ctx) => listMembers(ctx, ws));
  }
  setMember(
    ws: string,
    principal: string,
    role: S.Role,
    options?: S.CallOptions,
  ): Promise<S.Member> {
    const call = this.call('setMember', ws, null, options);
    return this.run(call, this.within(ws, 'member.manage'), (ctx) =>
      setMember(ctx, ws, principal, role),
    );
  }
  removeMember(ws: string, principal: string, options?: S.CallOptions): Promise<void> {
    const call = this.call('removeMember', ws, null, options);
    return this.run(call, this.within(ws, 'member.manage'), (ctx) =>
      removeMember(ctx, ws, principal),
    );
  }
  offerTransfer(ws: string, options?: S.OfferTransfer): Promise<S.TransferOffer> {
    const call = this.call('offerTransfer', ws, null, options);
    return this.run(call, this.within(ws, 'transfer.manage'), (ctx) =>
      offerTransfer(ctx, ws, options),
    );
  }
  listTransfers(ws: string): Promise<S.Transfer[]> {
    const call = this.call('listTransfers', ws, null);
    return this.run(call, this.within(ws, 'transfer.manage'), (ctx) => listTransfers(ctx, ws));
  }
  cancelTransfer(ws: string, id: string, options?: S.CallOptions): Promise<S.Transfer> {
    const call = this.call('cancelTransfer', ws, null, options);
    return this.run(call, this.within(ws, 'transfer.manage'), (ctx) => cancelTransfer(ctx, ws, id));
  }
  async acceptTransfer(code: string, options?: S.CallOptions): Promise<S.Transfer> {
    const workspace = await transferWorkspace(this.services.store, code);
    const call = this.call('acceptTransfer', workspace, null, options);
    return this.run(call, this.global('transfer.accept'), (ctx) => acceptTransfer(ctx, code));
  }

  // Webhooks (owners only)

  createWebhook(ws: string, input: S.CreateWebhook): Promise<S.CreatedWebhook> {
    const call = this.call('createWebhook', ws, null);
    return this.run(call, this.within(ws, 'webhook.manage'), (ctx) =>
      webhookOps.createWebhook(ctx, this.services.webhooks, ws, input),
    );
  }
  listWebhooks(ws: string): Promise<S.Webhook[]> {
    const call = this.call('listWebhooks', ws, null);
    return this.run(call, this.within(ws, 'webhook.read'), (ctx) =>
      webhookOps.listWebhooks(ctx, ws),
    );
  }
  getWebhook(ws: string, id: string): Promise<S.Webhook> {
    const call = this.call('getWebhook', ws, null);
    return this.run(call, this.within(ws, 'webhook.read'), (ctx) =>
      webhookOps.getWebhook(ctx, ws, id),
    );
  }
  updateWebhook(ws: string, id: string, change: S.UpdateWebhook): Promise<S.Webhook> {
    const call = this.call('updateWebhook', ws, null);
    return this.run(call, this.within(ws, 'webhook.manage'), (ctx) =>
      webhookOps.updateWebhook(ctx, this.services.webhooks, ws, id, change),
    );
  }
  deleteWebhook(ws: string, id: string): Promise<void> {
    const call = this.call('deleteWebhook', ws, null);
    return this.run(call, this.within(ws, 'webhook.manage'), (ctx) =>
      webhookOps.deleteWebhook(ctx, ws, id),
    );
  }
  listWebhookDeliveries(
    ws: string,
    id: string,
    options?: S.PageOptions,
  ): Promise<S.Page<S.WebhookDelivery>> {
    const call = this.call('listWebhookDeliveries', ws, null);
    return this.run(call, this.within(ws, 'webhook.read'), (ctx) =>
      webhookOps.listWebhookDeliveries(ctx, ws, id, options),
    );
  }
  startWebhooks(options?: WebhookDispatchOptions): WebhookDispatcher {
    const { webhooks, store, committer, changes, clock } = this.services;
    if (webhooks.dispatcher !== null) {
      throw new SatchelError('CONFLICT', 'webhook delivery already runs on this engine');
    }
    const dispatcher = new Dispatcher(
      { store, committer, changes, clock, hooks: webhooks },
      options,
    );
    webhooks.dispatcher = dispatcher;
    return {
      queueDepth: () => dispatcher.queueDepth(),
      stop: async () => {
        await dispatcher.stop();
        if (webhooks.dispatcher === dispatcher) webhooks.dispatcher = null;
      },
    };
  }
  webhookQueueDepth(): Promise<number> {
    return countQueued(this.services.store.kysely);
  }

  // Search (search/*) and workspace settings

  grep(ws: string, pattern: string, options?: S.GrepOptions): Promise<S.GrepResult> {
    const call = this.call('grep', ws, options?.path ?? null, options);
    return this.run(call, this.within(ws, 'file.read'), (ctx) =>
      grep(ctx, this.services.grepWorkers, ws, pattern, options),
    );
  }
  search(ws: string, query: string, options?: S.SearchOptions): Promise<S.SearchResult> {
    const call = this.call('search', ws, options?.path ?? null, options);
    return this.run(call, this.within(ws, 'file.read'), (ctx) =>
      searchPassages(ctx, this.services.search, ws, query, options),
    );
  }
  ask(ws: string, question: string, options?: S.AskOptions): Promise<S.AskResult> {
    const call = this.call('ask', ws, options?.path ?? null, options);
    return this.run(call, this.within(ws, 'file.read'), (ctx) =>
      ask(ctx, this.services.search, ws, question, options),
    );
  }
  searchStatus(ws: string): Promise<S.SearchStatus> {
    const call = this.call('searchStatus', ws, null);
    return this.run(call, this.within(ws, 'file.read'), async (ctx) =>
      this.services.search.status(await requireWorkspace(ctx.store, ws)),
    );
  }
  reindex(ws: string, options?: S.CallOptions): Promise<S.SearchStatus> {
    const call = this.call('reindex', ws, null, options);
    return this.run(call, this.within(ws, 'workspace.manage'), async (ctx) => {
      const row = await requireWorkspace(ctx.store, ws);
      requireIndexing(row);
      await this.services.search.reindex(row, REINDEX_WAIT_MS);
      return this.services.search.status(await requireWorkspace(ctx.store, ws));
    });
  }
  updateWorkspace(name: string, settings: S.UpdateWorkspace): Promise<S.WorkspaceInfo> {
    const call = this.call('updateWorkspace', name, null, settings);
    return this.run(call, this.within(name, 'workspace.manage'), async (ctx) => {
      await updateWorkspace(ctx, this.services.search, name, settings);
      // The call's store caches the workspace row as it was before the change.
      return getWorkspace({ ...ctx, store: this.services.store }, name);
    });
  }

  // Audit and maintenance

  async listAudit(options: S.AuditQuery = {}): Promise<S.Page<S.AuditEntryOut>> {
    const workspace = options.workspace ?? null;
    const call = this.call('listAudit', workspace, null);
    const check = workspace === null ? this.global('admin') : this.within(workspace, 'audit.read');
    return this.run(call, check, async () => {
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
    const call = this.call('verifyAudit', null, null);
    return this.run(call, this.global('admin'), async () => {
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
    const call = this.call('exportAudit', null, null);
    await this.run(call, this.global('admin'), async () => this.services.audit.flush());
    yield* this.services.audit.exportJsonl();
  }
  fsck(): Promise<S.FsckReport> {
    return this.run(this.call('fsck', null, null), this.global('admin'), (ctx) => fsck(ctx));
  }
  close(): Promise<void> {
    return this.services.close();
  }
}
