/** The engine as a Satchel: the data directory's admin, and the way to act as any principal. */

import type { Content, FileStream, Satchel } from '@satchel/client/operations/satchel.js';
import type { FileInfo } from '@satchel/client/schemas/index.js';
import type { Refusal } from '../audit/refusal-log.js';
import type { RateBudgets } from '../auth/rate-budgets.js';
import type { Actor } from '../kernel/actor.js';
import type { WebhookDispatcher, WebhookDispatchOptions } from '../webhooks/dispatcher.js';
import type { GcSchedule, GcScheduleOptions } from './gc.js';
import type { ShareRequest, ShareView } from './share-link-views.js';
import type { WebSignIn, WebSignInStarted } from './web-sessions.js';

export interface Readiness {
  readonly ready: boolean;
  readonly database: 'ok' | 'unreachable' | 'migrations pending';
  readonly content: 'ok' | 'unreachable';
}

/** The engine itself: a Satchel acting as the data directory's admin, and the way to others. */
export interface SatchelEngine extends Satchel {
  /** The actor an API key stands for; UNAUTHENTICATED if it is malformed, unknown, revoked or expired. */
  authenticate(key: string): Promise<Actor>;
  /**
   * Audits a call a frontend refused before it reached the engine as anyone: a missing or bad
   * key, a key over its rate limit. Goes to the server-level log (no workspace; admins read it
   * with `listAudit({ server: true })`), bounded per frontend and code (audit/refusal-log.ts).
   * Never throws and never waits.
   */
  auditRefusal(refusal: Refusal): void;
  /** The same engine acting as `actor`: every call is authorised and audited as that actor. */
  as(actor: Actor): Satchel;
  /** The admin key, when this open created it (first start on an empty data directory). */
  readonly createdAdminKey: string | null;
  /**
   * Starts delivering webhooks from this process (`satchel serve` does; short-lived commands
   * never do). CONFLICT if one already runs; `close()` stops it first.
   */
  startWebhooks(options?: WebhookDispatchOptions): WebhookDispatcher;
  /**
   * Starts garbage collection of content on a schedule (`satchel serve` does): every
   * `intervalSeconds` (default 3600) a run with `graceSeconds`; on several nodes of one database
   * the database's `gc` lease lets one run at a time. Stop it before closing the engine.
   */
  startGc(options?: GcScheduleOptions): GcSchedule;
  /** Webhook deliveries waiting for an attempt, across all workspaces (for metrics). */
  webhookQueueDepth(): Promise<number>;
  /**
   * Hits per key and window for rate limits: in this process on the embedded store, merged
   * across the nodes of one PostgreSQL database (auth/rate-budgets.ts).
   */
  readonly rates: RateBudgets;
  /**
   * Whether this node can serve: the database answers with a current schema, and the content
   * store answers. Never throws; each check is 'ok' or a short reason.
   */
  readiness(): Promise<Readiness>;
  /**
   * Writes `content` through a signed upload URL's token (engine/transfer-urls.ts), as the
   * signer: authorised and audited as that key now. UNAUTHENTICATED (`reason`: invalid,
   * expired, used) for the URL itself; TOO_LARGE / INVALID_INPUT when the bytes are not the ones
   * it names (nothing written, and the URL stays usable).
   */
  uploadBySignedUrl(token: string, content: Content): Promise<FileInfo>;
  /** Reads the file a signed download URL's token names, as the signer (same refusals). */
  downloadBySignedUrl(token: string): Promise<FileStream>;
  /**
   * Uses up a login link (`createLoginLink`) and starts a browser session for its user,
   * audited as that user; the result's `cookie` is the session's secret, returned only here.
   * UNAUTHENTICATED (`reason: link`) for a link that is unknown, used or expired.
   */
  signInWithLink(token: string, client?: { userAgent?: string | null }): Promise<WebSignInStarted>;
  /**
   * The user and session a session cookie stands for, checked on every call (revocation takes
   * effect at once). UNAUTHENTICATED (`reason: session`) when it is not a live session.
   */
  authenticateWebSession(cookie: string): Promise<WebSignIn>;
  /** Ends the session a cookie stands for (sign-out), audited; UNAUTHENTICATED if not live. */
  signOutWebSession(cookie: string): Promise<void>;
  /**
   * Opens what a share link's token shares (engine/share-link-views.ts): a file, or a page of
   * a folder's listing. Audited as `share:<link id>`; NOT_FOUND for an unknown token, FORBIDDEN
   * for a revoked, expired or used-up link, UNAUTHENTICATED for a missing or wrong password.
   */
  openShareLink(token: string, request?: ShareRequest): Promise<ShareView>;
}
