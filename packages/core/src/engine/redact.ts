/**
 * Redaction (issue 18): an owner removes the content of one version of a file, or of all of
 * them. The version rows, the file's entry and the audit trail stay — with the hash gone — so
 * history still says who wrote what when; every read of the content (head, range, version, `at`,
 * diff, restore, signed URL) answers REDACTED; search forgets the file's passages; the content
 * itself leaves the store at the next garbage collection, unless another file still holds the
 * same bytes. No seq is claimed: history is not rewritten, only emptied.
 */
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeEntryPath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type RedactOptions,
  RedactOptionsSchema,
  type RedactResult,
} from '@satchel/client/schemas/index.js';
import { type EngineContext, notFound, requireWorkspace } from '../kernel/context.js';

export async function redact(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawOptions: RedactOptions,
): Promise<RedactResult> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const options = parseOptions(RedactOptionsSchema, rawOptions);
  if ((options.version === undefined) === (options.all !== true)) {
    throw new SatchelError(
      'INVALID_INPUT',
      'give version (one version of the file) or all: true (every version), one of them',
      { field: 'version' },
    );
  }
  const which = options.all === true ? 'all' : (options.version as number);
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const seqs = await tx.past.redact(ws.id, path, which);
    if (seqs.length === 0) {
      if (which === 'all') {
        if ((await tx.listVersions(ws.id, path, null, 1)).length === 0) throw notFound(path);
      } else {
        const row = await tx.getVersion(ws.id, path, which);
        if (!row) throw notFound(`${path}@${which}`, 'version');
        if (row.deleted || row.type !== 'file') {
          throw new SatchelError(
            'INVALID_INPUT',
            `version ${which} of ${path} holds no content (${row.deleted ? 'a deletion' : 'a directory'})`,
            { path, seq: which },
          );
        }
      }
      // Already redacted: nothing more to remove, and saying so is the same answer.
    }
    // Search indexes the head only: its passages go when the head's content does.
    const head = await tx.getEntry(ws.id, path);
    if (head && seqs.includes(head.seq)) await tx.search.deletePassagesOf(ws.id, path);
    return { path, seqs };
  });
}
