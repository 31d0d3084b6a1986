/** The engine's workspace, file, history and change-feed methods, each authorised and audited. */
import { effectiveRole } from '../auth/authorize.js';
import type { BatchFile, Content, FileStream } from '../satchel.js';
import type * as S from '../schemas.js';
import { AuditedCalls } from './calls.js';
import { listChanges } from './changes.js';
import { editFile } from './edit.js';
import { diff, listVersions } from './history.js';
import { list, readFile, readText, stat } from './read.js';
import { copy, move, remove } from './tree.js';
import { createWorkspace, deleteWorkspace, getWorkspace, listWorkspaces } from './workspaces.js';
import { appendFile, mkdir, restore, writeFile, writeFiles } from './write.js';
import { writeFileByHash } from './write-by-hash.js';

export abstract class FileCalls extends AuditedCalls {
  // Workspaces

  createWorkspace(name: string, options?: S.CallOptions): Promise<S.Workspace> {
    const call = this.call('createWorkspace', name, null, options);
    return this.run(call, this.global('workspace.create'), (ctx) =>
      createWorkspace(ctx, name, options),
    );
  }
  listWorkspaces(options?: S.PageOptions): Promise<S.Page<S.Workspace>> {
    const call = this.call('listWorkspaces', null, null);
    return this.run(
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
    const call = this.call('getWorkspace', name, null);
    return this.run(call, this.within(name, 'workspace.read'), (ctx) => getWorkspace(ctx, name));
  }
  deleteWorkspace(name: string, options?: S.CallOptions): Promise<void> {
    const call = this.call('deleteWorkspace', name, null, options);
    return this.run(call, this.within(name, 'workspace.delete'), (ctx) =>
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
    const call = this.call('writeFile', ws, path, options);
    return this.run(call, this.within(ws, 'file.write', [path]), (ctx) =>
      writeFile(ctx, ws, path, content, options),
    );
  }
  writeFileByHash(
    ws: string,
    path: string,
    hash: string,
    options?: S.WriteOptions,
  ): Promise<S.FileInfo> {
    const call = this.call('writeFileByHash', ws, path, options);
    return this.run(call, this.within(ws, 'file.write', [path]), (ctx) =>
      writeFileByHash(ctx, ws, path, hash, options),
    );
  }
  writeFiles(
    ws: string,
    files: readonly BatchFile[],
    options?: S.CallOptions,
  ): Promise<S.FileInfo[]> {
    const call = this.call('writeFiles', ws, null, options);
    const paths = Array.isArray(files) ? files.map((f) => f?.path) : [];
    return this.run(call, this.within(ws, 'file.write', paths), (ctx) =>
      writeFiles(ctx, ws, files, options),
    );
  }
  appendFile(
    ws: string,
    path: string,
    content: Content,
    options?: S.AppendOptions,
  ): Promise<S.FileInfo> {
    const call = this.call('appendFile', ws, path, options);
    return this.run(call, this.within(ws, 'file.write', [path]), (ctx) =>
      appendFile(ctx, ws, path, content, options),
    );
  }
  readFile(ws: string, path: string, options?: S.ReadOptions): Promise<FileStream> {
    const call = this.call('readFile', ws, path, options);
    return this.run(call, this.within(ws, 'file.read'), (ctx) => readFile(ctx, ws, path, options));
  }
  readText(ws: string, path: string, options?: S.ReadTextOptions): Promise<S.TextSlice> {
    const call = this.call('readText', ws, path, options);
    return this.run(call, this.within(ws, 'file.read'), (ctx) => readText(ctx, ws, path, options));
  }
  stat(ws: string, path: string, options?: { version?: number }): Promise<S.FileInfo> {
    const call = this.call('stat', ws, path);
    return this.run(call, this.within(ws, 'file.read'), (ctx) => stat(ctx, ws, path, options));
  }
  list(ws: string, options?: S.ListOptions): Promise<S.ListPage> {
    const call = this.call('list', ws, options?.path ?? '/', options);
    return this.run(call, this.within(ws, 'file.read'), (ctx) => list(ctx, ws, options));
  }
  mkdir(ws: string, path: string, options?: S.MutationOptions): Promise<S.FileInfo> {
    const call = this.call('mkdir', ws, path, options);
    return this.run(call, this.within(ws, 'file.write', [path]), (ctx) =>
      mkdir(ctx, ws, path, options),
    );
  }
  remove(ws: string, path: string, options?: S.RemoveOptions): Promise<S.RemoveResult> {
    const call = this.call('remove', ws, path, options);
    return this.run(call, this.within(ws, 'file.write', [path]), (ctx) =>
      remove(ctx, ws, path, options),
    );
  }
  move(ws: string, from: string, to: string, options?: S.MoveOptions): Promise<S.FileInfo> {
    const call = this.call('move', ws, from, options);
    return this.run(call, this.within(ws, 'file.write', [from, to]), (ctx) =>
      move(ctx, ws, from, to, options),
    );
  }
  copy(ws: string, from: string, to: string, options?: S.CopyOptions): Promise<S.FileInfo> {
    const call = this.call('copy', ws, to, options);
    return this.run(call, this.within(ws, 'file.write', [to]), (ctx) =>
      copy(ctx, ws, from, to, options),
    );
  }
  editFile(
    ws: string,
    path: string,
    edits: readonly S.Edit[],
    options?: S.EditOptions,
  ): Promise<S.EditResult> {
    const call = this.call('editFile', ws, path, options);
    return this.run(call, this.within(ws, 'file.write', [path]), (ctx) =>
      editFile(ctx, ws, path, edits, options),
    );
  }
  listVersions(ws: string, path: string, options?: S.PageOptions): Promise<S.Page<S.Version>> {
    const call = this.call('listVersions', ws, path);
    return this.run(call, this.within(ws, 'file.read'), (ctx) =>
      listVersions(ctx, ws, path, options),
    );
  }
  diff(ws: string, path: string, options?: S.DiffOptions): Promise<S.DiffResult> {
    const call = this.call('diff', ws, path, options);
    return this.run(call, this.within(ws, 'file.read'), (ctx) => diff(ctx, ws, path, options));
  }
  restore(ws: string, path: string, seq: number, options?: S.WriteOptions): Promise<S.FileInfo> {
    const call = this.call('restore', ws, path, options);
    return this.run(call, this.within(ws, 'file.write', [path]), (ctx) =>
      restore(ctx, ws, path, seq, options),
    );
  }

  listChanges(ws: string, options?: S.ListChangesOptions): Promise<S.ChangesPage> {
    const call = this.call('listChanges', ws, options?.path ?? null, options);
    return this.run(call, this.within(ws, 'file.read'), (ctx) =>
      listChanges(ctx, this.services.changes, ws, options),
    );
  }
}
