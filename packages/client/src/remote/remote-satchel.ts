/**
 * RemoteSatchel: the Satchel interface over the REST API of `satchel serve` (CONTRACT.md), so
 * that a frontend works the same on a server as on a data directory. Every operation with an
 * HTTP binding is one request built from its declaration (binding.ts); the few whose bodies
 * are byte streams or event streams are written by hand (custom-calls.ts).
 */
import { z } from 'zod';
import { SatchelError } from '../errors.js';
import { OPERATIONS, type OperationMethods, type OperationName } from '../operations/index.js';
import { operationMethods } from '../operations/methods.js';
import type { OperationSpec } from '../operations/operation.js';
import type { Satchel } from '../operations/satchel.js';
import { bindRequest, namedFields } from './binding.js';
import { CUSTOM_CALLS, exportAudit, type RemoteContext } from './custom-calls.js';
import { conditionHeaders } from './file-headers.js';
import { HttpClient, sessionHeader } from './http.js';

export interface RemoteSatchelOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:8787` (the API lives under `/v1`). */
  readonly url: string;
  /** API key, sent as `Authorization: Bearer <key>`; every call acts as its principal. */
  readonly token: string;
  /** Default: the global fetch. Tests and proxies pass their own. */
  readonly fetch?: typeof fetch;
  /** Session label sent with every call that does not name its own (`Satchel-Session`). */
  readonly session?: string;
}

/**
 * The Satchel interface over HTTP, acting as the principal of `token`. Results and errors are
 * those of the engine behind the server: a problem+json answer becomes a SatchelError with the
 * same `code`, message (`detail`) and `data`. File content streams both ways: `writeFile`
 * sends a stream as it is produced, and `readFile`'s body is the download itself, pulled as it
 * is read.
 *
 * A server that cannot be reached (refused, reset, DNS, TLS) is INTERNAL "cannot reach <url>:
 * …", which the CLI reports with exit 1. `close()` does nothing: there is no connection of its
 * own to release.
 */
export class RemoteSatchel extends operationMethods() implements Satchel {
  readonly #remote: RemoteContext;

  constructor(options: RemoteSatchelOptions) {
    super();
    const http = new HttpClient(options);
    this.#remote = {
      http,
      headers: (session) => sessionHeader(typeof session === 'string' ? session : options.session),
    };
  }

  /** The server's base URL, normalised (no trailing slash). */
  get url(): string {
    return this.#remote.http.url;
  }

  override async call<K extends OperationName>(
    name: K,
    args: Parameters<OperationMethods[K]>,
  ): Promise<Awaited<ReturnType<OperationMethods[K]>>> {
    type Result = Awaited<ReturnType<OperationMethods[K]>>;
    const spec: OperationSpec = OPERATIONS[name];
    const custom = CUSTOM_CALLS[name] as
      | ((remote: RemoteContext, args: unknown) => Promise<Result>)
      | undefined;
    if (custom !== undefined) return custom(this.#remote, args);
    if ('custom' in spec.http) {
      throw new SatchelError('INTERNAL', `the client has no request for ${name}`);
    }
    const binding = spec.http;
    const { path, query, headers, json } = bindRequest(binding, namedFields(spec, args));
    const request = {
      method: binding.method,
      path: `/v1${path}`,
      query,
      headers: {
        ...this.#remote.headers(headers.session),
        ...conditionHeaders({ lockToken: headers.lockToken as number | undefined }),
      },
      ...(json === undefined ? {} : { json }),
    };
    const { http } = this.#remote;
    if (binding.status === 204 || spec.result === undefined) {
      return (await http.empty(request)) as Result;
    }
    if (binding.list === true) {
      return (await http.json(z.object({ items: spec.result }), request)).items as Result;
    }
    return (await http.json(spec.result, request)) as Result;
  }

  /**
   * The whole log as JSON lines, byte for byte the engine's export (RFC 8785 canonical JSON,
   * `time` in epoch milliseconds), streamed from `GET /v1/audit/export` (admins).
   */
  exportAudit(): AsyncIterable<string> {
    return exportAudit(this.#remote);
  }

  async close(): Promise<void> {}
}
