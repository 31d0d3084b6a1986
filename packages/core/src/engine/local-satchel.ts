/**
 * The engine behind the Satchel interface, acting as one actor. Every method of the operation
 * table comes to `call`, which does what the declaration says, once: authorise as the declaration says (`access`), run the
 * operation's function (runs.ts), audit the call (calls.ts).
 */

import { SatchelError } from '@satchel/client/errors.js';
import {
  OPERATIONS,
  type OperationMethods,
  type OperationName,
} from '@satchel/client/operations/index.js';
import { operationMethods } from '@satchel/client/operations/methods.js';
import {
  type Access,
  type OperationSpec,
  optionsOf,
} from '@satchel/client/operations/operation.js';
import type { Content, FileStream, Satchel } from '@satchel/client/operations/satchel.js';
import type { FileInfo } from '@satchel/client/schemas/index.js';
import type { Refusal } from '../audit/refusal-log.js';
import * as accessOps from '../auth/access.js';
import type { RateBudgets } from '../auth/rate-budgets.js';
import type { Actor } from '../kernel/actor.js';
import {
  Dispatcher,
  type WebhookDispatcher,
  type WebhookDispatchOptions,
} from '../webhooks/dispatcher.js';
import {
  type Check,
  describeCall,
  type EngineServices,
  globalCheck,
  runAudited,
  unavailableOr,
  workspaceCheck,
} from './calls.js';
import { type GcSchedule, type GcScheduleOptions, scheduleGc } from './gc.js';
import { PATH_OF, RUNS, WORKSPACE_OF } from './runs.js';
import type { Readiness, SatchelEngine } from './satchel-engine.js';
import { openShareLink, type ShareRequest, type ShareView } from './share-link-views.js';
import { boundContent, redeem } from './transfer-urls.js';
import {
  authenticateWebSession,
  signInWithLink,
  signOutWebSession,
  type WebSignIn,
  type WebSignInStarted,
} from './web-sessions.js';

export type { EngineServices } from './calls.js';

const NO_CHECK: Check = async () => undefined;

/** Operations that read one file's head: their authorisation looks its entry up as well. */
const FILE_READS: ReadonlySet<OperationName> = new Set(['readFile', 'readText']);

function checkOf(
  actor: Actor,
  access: Access<never>,
  workspace: unknown,
  args: never,
  file: unknown,
): Check {
  if (typeof access === 'function') return checkOf(actor, access(args), workspace, args, file);
  if ('global' in access) return globalCheck(actor, access.global);
  if ('self' in access) return NO_CHECK;
  // A workspace name that is not a string is refused by the check's validation.
  const paths = access.paths?.(args) ?? [];
  return workspaceCheck(actor, workspace as string, access.workspace, paths, file);
}

/** The engine behind the Satchel interface, acting as one actor. */
export class LocalSatchel extends operationMethods() implements SatchelEngine {
  constructor(
    private readonly services: EngineServices,
    private readonly actor: Actor,
    readonly createdAdminKey: string | null = null,
  ) {
    super();
  }

  as(actor: Actor): Satchel {
    return new LocalSatchel(this.services, actor);
  }

  auditRefusal(refusal: Refusal): void {
    this.services.refusals.refuse(refusal);
  }

  authenticate(key: string): Promise<Actor> {
    const { store, clock, keys } = this.services;
    return accessOps.authenticate(store, key, clock(), keys).catch((error: unknown) => {
      throw unavailableOr(store, error);
    });
  }

  /** Runs operation `name` with the arguments its method was called with. */
  override async call<K extends OperationName>(
    name: K,
    args: Parameters<OperationMethods[K]>,
  ): Promise<Awaited<ReturnType<OperationMethods[K]>>> {
    const spec: OperationSpec = OPERATIONS[name];
    const argv = args as unknown as never;
    const resolve = WORKSPACE_OF[name] as
      | ((services: EngineServices, args: unknown) => Promise<string | null>)
      | undefined;
    const named = spec.args.findIndex(([arg]) => arg === 'workspace');
    const workspace =
      resolve !== undefined
        ? await resolve(this.services, args)
        : (spec.workspace?.(argv) ?? (named === -1 ? null : args[named]));
    const pathOf = PATH_OF[name] as
      | ((services: EngineServices, args: unknown) => Promise<string | null>)
      | undefined;
    const call = describeCall(
      name,
      typeof workspace === 'string' ? workspace : null,
      pathOf !== undefined ? await pathOf(this.services, args) : (spec.auditPath?.(argv) ?? null),
      optionsOf(spec, args),
    );
    type Result = Awaited<ReturnType<OperationMethods[K]>>;
    const run = RUNS[name] as (ctx: unknown, args: unknown, s: EngineServices) => Promise<Result>;
    return runAudited(
      this.services,
      this.actor,
      call,
      checkOf(
        this.actor,
        spec.access as Access<never>,
        workspace,
        argv,
        FILE_READS.has(name) ? args[spec.args.findIndex(([arg]) => arg === 'path')] : undefined,
      ),
      (ctx) => run(ctx, args, this.services),
    );
  }

  async uploadBySignedUrl(token: string, content: Content): Promise<FileInfo> {
    const { claims, actor, release } = await this.#redeem(token, 'u');
    try {
      return await this.as(actor).writeFile(claims.w, claims.p, boundContent(content, claims), {
        ...(claims.im === undefined ? {} : { ifMatch: claims.im }),
        ...(claims.inm === undefined ? {} : { ifNoneMatch: claims.inm }),
        ...(claims.lt === undefined ? {} : { lockToken: claims.lt }),
        // A size the URL was signed for is checked against quotas before anything is stored.
        ...(claims.s === undefined ? {} : { size: claims.s }),
      });
    } catch (error) {
      await release().catch(() => undefined);
      throw error;
    }
  }

  async downloadBySignedUrl(token: string): Promise<FileStream> {
    const { claims, actor, release } = await this.#redeem(token, 'd');
    try {
      return await this.as(actor).readFile(claims.w, claims.p, {
        ...(claims.v === undefined ? {} : { version: claims.v }),
      });
    } catch (error) {
      await release().catch(() => undefined);
      throw error;
    }
  }

  openShareLink(token: string, request: ShareRequest = {}): Promise<ShareView> {
    const { store } = this.services;
    return openShareLink(this.services, token, request).catch((error: unknown) => {
      throw unavailableOr(store, error);
    });
  }

  #redeem(token: string, kind: 'u' | 'd') {
    const { store, clock } = this.services;
    return redeem(store, clock, token, kind).catch((error: unknown) => {
      throw unavailableOr(store, error);
    });
  }

  async signInWithLink(
    token: string,
    client: { userAgent?: string | null } = {},
  ): Promise<WebSignInStarted> {
    const { store, clock } = this.services;
    let started: WebSignInStarted;
    try {
      started = await signInWithLink(store, clock(), token, client.userAgent ?? null);
    } catch (error) {
      const failed = unavailableOr(store, error);
      if (failed instanceof SatchelError && failed.code === 'UNAUTHENTICATED') {
        this.auditRefusal({ source: 'web', code: failed.code, action: 'signInWithLink' });
      }
      throw failed;
    }
    const call = describeCall('signInWithLink', null, null);
    await runAudited(this.services, started.actor, call, NO_CHECK, async () => undefined);
    return started;
  }

  authenticateWebSession(cookie: string): Promise<WebSignIn> {
    const { store, clock } = this.services;
    return authenticateWebSession(store, clock(), cookie).catch((error: unknown) => {
      throw unavailableOr(store, error);
    });
  }

  async signOutWebSession(cookie: string): Promise<void> {
    const { actor } = await this.authenticateWebSession(cookie);
    const { store, clock } = this.services;
    const call = describeCall('signOutWebSession', null, null);
    await runAudited(this.services, actor, call, NO_CHECK, () =>
      signOutWebSession(store, clock(), cookie),
    );
  }

  async *exportAudit(): AsyncIterable<string> {
    const { audit } = this.services;
    const call = describeCall('exportAudit', null, null);
    await runAudited(this.services, this.actor, call, globalCheck(this.actor, 'admin'), () =>
      audit.flush(),
    );
    yield* audit.exportJsonl();
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

  startGc(options?: GcScheduleOptions): GcSchedule {
    return scheduleGc(this.services, options);
  }

  async readiness(): Promise<Readiness> {
    const { store, blobs } = this.services;
    const database = await store.pendingMigrations().then(
      (pending) => (pending.length === 0 ? 'ok' : 'migrations pending'),
      () => 'unreachable' as const,
    );
    const content = await blobs.has('0'.repeat(64)).then(
      () => 'ok' as const,
      () => 'unreachable' as const,
    );
    return { ready: database === 'ok' && content === 'ok', database, content };
  }

  get rates(): RateBudgets {
    return this.services.rates;
  }

  webhookQueueDepth(): Promise<number> {
    return this.services.store.webhooks.countQueued();
  }

  close(): Promise<void> {
    return this.services.close();
  }
}
