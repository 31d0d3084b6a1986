/** The HTTP plumbing every RemoteSatchel method shares: options, the client, URLs and bodies. */
import type { z } from 'zod';
import type * as S from '../schemas.js';
import { conditionHeaders, urlPath } from './file-headers.js';
import { HttpClient, type Query, segment, sessionHeader } from './http.js';

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

/** Base of RemoteSatchel: the HTTP client, the session label, and request helpers. */
export abstract class RemoteBase {
  protected readonly http: HttpClient;
  protected readonly session: string | undefined;

  constructor(options: RemoteSatchelOptions) {
    this.http = new HttpClient(options);
    this.session = options.session;
  }

  /** The server's base URL, normalised (no trailing slash). */
  get url(): string {
    return this.http.url;
  }

  // Requests

  /** `Satchel-Session`: the call's label, else the client's. */
  protected headers(session?: string): Record<string, string | undefined> {
    return sessionHeader(session ?? this.session);
  }

  protected ws(name: string): string {
    return `/v1/workspaces/${segment(name)}`;
  }

  protected file(workspace: string, path: string): string {
    return `${this.ws(workspace)}/files/${urlPath(path)}`;
  }

  protected async get<T extends z.ZodType>(
    schema: T,
    path: string,
    query?: Query,
  ): Promise<z.infer<T>> {
    return this.http.json(schema, { method: 'GET', path, headers: this.headers(), query });
  }

  protected async post<T extends z.ZodType>(
    schema: T,
    path: string,
    json: unknown,
  ): Promise<z.infer<T>> {
    return this.http.json(schema, { method: 'POST', path, headers: this.headers(), json });
  }

  /** POST …/move, copy, edit, mkdir, restore: options in the body, session and lock as headers. */
  protected async treeCall<T extends z.ZodType>(
    schema: T,
    workspace: string,
    action: string,
    fields: Record<string, unknown>,
    options: S.MutationOptions,
  ): Promise<z.infer<T>> {
    const { session, lockToken, ...rest } = options;
    return this.http.json(schema, {
      method: 'POST',
      path: `${this.ws(workspace)}/${action}`,
      headers: { ...this.headers(session), ...conditionHeaders({ lockToken }) },
      json: { ...fields, ...rest },
    });
  }
}
