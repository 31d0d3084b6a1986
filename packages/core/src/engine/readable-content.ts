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
 * Answers "does a workspace this caller may read hold content `hash`?" for one call: content the
 * registry does not know is answered at once; then the target workspace; then the others the
 * caller may read (listed once, when first needed), up to 500 of them per statement.
 */
export class ReadableContent {
  #others: Promise<string[]> | null = null;

  constructor(
    private readonly ctx: EngineContext,
    /** The workspace the call writes into: its own content is always nameable (writeFileByHash). */
    private readonly target: WorkspaceRecord,
  ) {}

  /** The blob of `hash`, inline bytes included, when a readable workspace refers to it. */
  async find(hash: string, q: MetadataQueries = this.ctx.store): Promise<BlobRecord | undefined> {
    if (!(await q.content.registered(hash))) return undefined;
    return (
      (await q.content.readable([this.target.id], hash)) ??
      q.content.readable(await this.others(), hash)
    );
  }

  /** Whether `find` would find the blob of `hash`; its inline bytes are not read. */
  async holds(hash: string, q: MetadataQueries = this.ctx.store): Promise<boolean> {
    if (!(await q.content.registered(hash))) return false;
    return (
      (await q.content.held([this.target.id], hash)) || q.content.held(await this.others(), hash)
    );
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
