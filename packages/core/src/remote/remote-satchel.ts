/**
 * RemoteSatchel: the Satchel interface over the REST API of `satchel serve` (CONTRACT.md), so
 * that a frontend works the same on a server as on a data directory. The file methods are in
 * remote-file-calls.ts; locks, access and the audit log are here.
 */
import { SatchelError } from '../errors.js';
import type { Satchel } from '../satchel.js';
import * as S from '../schemas.js';
import { segment } from './http.js';
import { RemoteFileCalls } from './remote-file-calls.js';

export type { RemoteSatchelOptions } from './remote-base.js';

const LockPage = S.pageSchema(S.LockSchema);
const PrincipalPage = S.pageSchema(S.PrincipalSchema);
const KeyPage = S.pageSchema(S.KeyInfoSchema);
const MemberPage = S.pageSchema(S.MemberSchema);
const TransferPage = S.pageSchema(S.TransferSchema);
const AuditPage = S.pageSchema(S.AuditEntrySchema);
const WebhookPage = S.pageSchema(S.WebhookSchema);
const DeliveryPage = S.pageSchema(S.WebhookDeliverySchema);

/**
 * The Satchel interface over HTTP: each method is one request to the API (`readText` reads the
 * file and slices it here, by the engine's own rules), acting as the
 * principal of `token`. Results and errors are those of the engine behind the server: a
 * problem+json answer becomes a SatchelError with the same `code`, message (`detail`) and
 * `data`. File content streams both ways: `writeFile` sends a stream as it is produced, and
 * `readFile`'s body is the download itself, pulled as it is read.
 *
 * A server that cannot be reached (refused, reset, DNS, TLS) is INTERNAL "cannot reach <url>:
 * …", which the CLI reports with exit 1. `close()` does nothing: there is no connection of its
 * own to release.
 */
export class RemoteSatchel extends RemoteFileCalls implements Satchel {
  // Locks

  async acquireLock(workspace: string, options: S.AcquireLock): Promise<S.Lock> {
    const { session, ...body } = options;
    return this.http.json(S.LockSchema, {
      method: 'POST',
      path: `${this.ws(workspace)}/locks`,
      headers: this.headers(session),
      json: body,
    });
  }

  async renewLock(
    workspace: string,
    lockId: string,
    options: { ttlSeconds?: number } & S.CallOptions = {},
  ): Promise<S.Lock> {
    return this.http.json(S.LockSchema, {
      method: 'POST',
      path: `${this.#lock(workspace, lockId)}/renew`,
      headers: this.headers(options.session),
      json: { ttlSeconds: options.ttlSeconds },
    });
  }

  async releaseLock(workspace: string, lockId: string, options: S.CallOptions = {}): Promise<void> {
    return this.http.empty({
      method: 'DELETE',
      path: this.#lock(workspace, lockId),
      headers: this.headers(options.session),
    });
  }

  async breakLock(workspace: string, lockId: string, options: S.CallOptions = {}): Promise<S.Lock> {
    return this.http.json(S.LockSchema, {
      method: 'DELETE',
      path: this.#lock(workspace, lockId),
      headers: this.headers(options.session),
      query: { break: true },
    });
  }

  async listLocks(workspace: string, options: { path?: string } = {}): Promise<S.Lock[]> {
    const page = await this.http.json(LockPage, {
      method: 'GET',
      path: `${this.ws(workspace)}/locks`,
      headers: this.headers(),
      query: { path: options.path },
    });
    return page.items;
  }

  // Principals, keys, members, transfers

  async whoami(): Promise<S.WhoAmI> {
    return this.get(S.WhoAmISchema, '/v1/whoami');
  }

  async createPrincipal(input: S.CreatePrincipal): Promise<S.Principal> {
    return this.post(S.PrincipalSchema, '/v1/principals', input);
  }

  async listPrincipals(options: S.PageOptions = {}): Promise<S.Page<S.Principal>> {
    return this.get(PrincipalPage, '/v1/principals', {
      cursor: options.cursor,
      limit: options.limit,
    });
  }

  async createKey(input: S.CreateKey = {}): Promise<S.CreatedKey> {
    return this.post(S.CreatedKeySchema, '/v1/keys', input);
  }

  async listKeys(options: { all?: boolean } = {}): Promise<S.KeyInfo[]> {
    return (await this.get(KeyPage, '/v1/keys', { all: options.all })).items;
  }

  async revokeKey(id: string): Promise<S.KeyInfo> {
    return this.http.json(S.KeyInfoSchema, {
      method: 'DELETE',
      path: `/v1/keys/${segment(id)}`,
      headers: this.headers(),
    });
  }

  async listMembers(workspace: string): Promise<S.Member[]> {
    return (await this.get(MemberPage, `${this.ws(workspace)}/members`)).items;
  }

  async setMember(
    workspace: string,
    principal: string,
    role: S.Role,
    options: S.CallOptions = {},
  ): Promise<S.Member> {
    return this.http.json(S.MemberSchema, {
      method: 'PUT',
      path: `${this.ws(workspace)}/members/${segment(principal)}`,
      headers: this.headers(options.session),
      json: { role },
    });
  }

  async removeMember(
    workspace: string,
    principal: string,
    options: S.CallOptions = {},
  ): Promise<void> {
    return this.http.empty({
      method: 'DELETE',
      path: `${this.ws(workspace)}/members/${segment(principal)}`,
      headers: this.headers(options.session),
    });
  }

  async offerTransfer(workspace: string, options: S.OfferTransfer = {}): Promise<S.TransferOffer> {
    const { session, ...body } = options;
    return this.http.json(S.TransferOfferSchema, {
      method: 'POST',
      path: `${this.ws(workspace)}/transfers`,
      headers: this.headers(session),
      json: body,
    });
  }

  async listTransfers(workspace: string): Promise<S.Transfer[]> {
    return (await this.get(TransferPage, `${this.ws(workspace)}/transfers`)).items;
  }

  async cancelTransfer(
    workspace: string,
    id: string,
    options: S.CallOptions = {},
  ): Promise<S.Transfer> {
    return this.http.json(S.TransferSchema, {
      method: 'DELETE',
      path: `${this.ws(workspace)}/transfers/${segment(id)}`,
      headers: this.headers(options.session),
    });
  }

  async acceptTransfer(code: string, options: S.CallOptions = {}): Promise<S.Transfer> {
    return this.http.json(S.TransferSchema, {
      method: 'POST',
      path: '/v1/transfers/accept',
      headers: this.headers(options.session),
      json: { code },
    });
  }

  // Webhooks

  async createWebhook(workspace: string, input: S.CreateWebhook): Promise<S.CreatedWebhook> {
    return this.post(S.CreatedWebhookSchema, `${this.ws(workspace)}/webhooks`, input);
  }

  async listWebhooks(workspace: string): Promise<S.Webhook[]> {
    return (await this.get(WebhookPage, `${this.ws(workspace)}/webhooks`)).items;
  }

  async getWebhook(workspace: string, id: string): Promise<S.Webhook> {
    return this.get(S.WebhookSchema, this.#webhook(workspace, id));
  }

  async updateWebhook(workspace: string, id: string, change: S.UpdateWebhook): Promise<S.Webhook> {
    return this.http.json(S.WebhookSchema, {
      method: 'PATCH',
      path: this.#webhook(workspace, id),
      headers: this.headers(),
      json: change,
    });
  }

  async deleteWebhook(workspace: string, id: string): Promise<void> {
    return this.http.empty({
      method: 'DELETE',
      path: this.#webhook(workspace, id),
      headers: this.headers(),
    });
  }

  async listWebhookDeliveries(
    workspace: string,
    id: string,
    options: S.PageOptions = {},
  ): Promise<S.Page<S.WebhookDelivery>> {
    return this.get(DeliveryPage, `${this.#webhook(workspace, id)}/deliveries`, {
      cursor: options.cursor,
      limit: options.limit,
    });
  }

  // Search and workspace settings

  async updateWorkspace(name: string, settings: S.UpdateWorkspace): Promise<S.WorkspaceInfo> {
    const { session, ...body } = settings;
    return this.http.json(S.WorkspaceInfoSchema, {
      method: 'PATCH',
      path: this.ws(name),
      headers: this.headers(session),
      json: body,
    });
  }

  async grep(
    workspace: string,
    pattern: string,
    options: S.GrepOptions = {},
  ): Promise<S.GrepResult> {
    const { session, ...query } = options;
    return this.http.json(S.GrepResultSchema, {
      method: 'GET',
      path: `${this.ws(workspace)}/grep`,
      headers: this.headers(session),
      query: { pattern, ...query },
    });
  }

  async search(
    workspace: string,
    q: string,
    options: S.SearchOptions = {},
  ): Promise<S.SearchResult> {
    const { session, ...query } = options;
    return this.http.json(S.SearchResultSchema, {
      method: 'GET',
      path: `${this.ws(workspace)}/search`,
      headers: this.headers(session),
      query: { q, ...query },
    });
  }

  async ask(workspace: string, question: string, options: S.AskOptions = {}): Promise<S.AskResult> {
    const { session, ...body } = options;
    return this.http.json(S.AskResultSchema, {
      method: 'POST',
      path: `${this.ws(workspace)}/ask`,
      headers: this.headers(session),
      json: { question, ...body },
    });
  }

  async searchStatus(workspace: string): Promise<S.SearchStatus> {
    return this.get(S.SearchStatusSchema, `${this.ws(workspace)}/search/status`);
  }

  async reindex(workspace: string, options: S.CallOptions = {}): Promise<S.SearchStatus> {
    return this.http.json(S.SearchStatusSchema, {
      method: 'POST',
      path: `${this.ws(workspace)}/search/reindex`,
      headers: this.headers(options.session),
      json: {},
    });
  }

  // Audit and maintenance

  async listAudit(options: S.AuditQuery = {}): Promise<S.Page<S.AuditEntryOut>> {
    const path =
      options.workspace === undefined ? '/v1/audit' : `${this.ws(options.workspace)}/audit`;
    return this.get(AuditPage, path, { after: options.cursor, limit: options.limit });
  }

  async verifyAudit(): Promise<S.AuditVerificationOut> {
    return this.get(S.AuditVerificationSchema, '/v1/audit/verify');
  }

  /**
   * The whole log as JSON lines, byte for byte the engine's export (RFC 8785 canonical JSON,
   * `time` in epoch milliseconds), streamed from `GET /v1/audit/export` (admins).
   */
  async *exportAudit(): AsyncIterable<string> {
    const res = await this.http.send({
      method: 'GET',
      path: '/v1/audit/export',
      headers: this.headers(),
    });
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let partial = '';
    for await (const piece of this.http.pieces(res)) {
      partial += decoder.decode(piece, { stream: true });
      let nl = partial.indexOf('\n');
      while (nl !== -1) {
        yield partial.slice(0, nl + 1);
        partial = partial.slice(nl + 1);
        nl = partial.indexOf('\n');
      }
    }
    partial += decoder.decode();
    if (partial !== '') {
      throw new SatchelError('INTERNAL', `the audit export from ${this.url} ended mid-line`);
    }
  }

  /** `POST /v1/fsck`: re-hashes all content on the server and checks every reference (admin). */
  async fsck(): Promise<S.FsckReport> {
    return this.post(S.FsckReportSchema, '/v1/fsck', {});
  }

  async close(): Promise<void> {}

  #webhook(workspace: string, id: string): string {
    return `${this.ws(workspace)}/webhooks/${segment(id)}`;
  }

  #lock(workspace: string, lockId: string): string {
    return `${this.ws(workspace)}/locks/${segment(lockId)}`;
  }
}
