/**
 * Content a caller may name by hash instead of sending it: content that a version (current,
 * historical or deleted) of a workspace the caller may read refers to. A workspace the caller
 * cannot read counts as holding nothing, so the answer never tells whether it has some content.
 */
import { SatchelError } from '@satchel/client/errors.js';
import { authorizeRole, effectiveRole } from '../auth/authorize.js';
import type { EngineContext } from '../kernel/context.js';
import type {
  BlobRecord,
  MetadataQueries,
  WorkspaceRecord,
} from '../store/metadata/metadata-store.js';

const SCAN_PAGE = 500;

/** Whether `actor` may read files in `ws` (role and key scope); never throws for a refusal. */
async function mayRead(ctx: EngineContext, ws: WorkspaceRecord): Promise<boolean> {
  const role = await effectiveRole(ctx.store, ctx.actor, ws);
  try {
    authorizeRole(ctx.actor, 'file.read', ws, role);
    return true;
  } catch (error) {
    if (error instanceof SatchelError) return false;
    throw error;
  }
}

/**
 * Answers "does a workspace this caller may read hold content `hash`?" for one call. Once the
 * other workspaces the caller may read are listed, one statement asks them all (500 at a time)
 * with the target. Until then, content the registry does not know is answered at once and the
 * target alone is asked first: a call naming only new content or its own lists no workspace.
 */
export class ReadableContent {
  #others: Promise<string[]> | null = null;
  /** The target and the others, once listed. */
  #all: string[] | null = null;

  constructor(
    private readonly ctx: EngineContext,
    /** The workspace the call writes into: its own content is always nameable (writeFileByHash). */
    private readonly target: WorkspaceRecord,
  ) {}

  /** The blob of `hash`, inline bytes included, when a readable workspace refers to it. */
  find(hash: string, q: MetadataQueries = this.ctx.store): Promise<BlobRecord | undefined> {
    return this.#ask(hash, q, (ids) => q.content.readable(ids, hash));
  }

  /** Whether `find` would find the blob of `hash`; its inline bytes are not read. */
  async holds(hash: string, q: MetadataQueries = this.ctx.store): Promise<boolean> {
    const held = (ids: readonly string[]) =>
      q.content.held(ids, hash).then((yes) => (yes ? true : undefined));
    return (await this.#ask(hash, q, held)) === true;
  }

  /** `ask` of the workspaces that may hold `hash`, in as few statements as the call allows. */
  async #ask<T>(
    hash: string,
    q: MetadataQueries,
    ask: (workspaceIds: readonly string[]) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    if (this.#all) return ask(this.#all);
    if (!(await q.content.registered(hash))) return undefined;
    const own = await ask([this.target.id]);
    if (own !== undefined) return own;
    this.#all ??= [this.target.id, ...(await this.others())];
    return ask(this.#all);
  }

  private others(): Promise<string[]> {
    this.#others ??= this.listOthers();
    return this.#others;
  }

  private async listOthers(): Promise<string[]> {
    const ids: string[] = [];
    let after: string | null = null;
    for (;;) {
      const rows = await this.ctx.store.listWorkspaces(after, SCAN_PAGE);
      for (const row of rows) {
        if (row.id !== this.target.id && (await mayRead(this.ctx, row))) ids.push(row.id);
      }
      const last = rows.at(-1);
      if (rows.length < SCAN_PAGE || !last) return ids;
      after = last.name;
    }
  }
}
