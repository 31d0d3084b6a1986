/** Row types of the metadata database (docs/storage.md describes every table and invariant). */
import type { Generated } from 'kysely';

export interface MetaTable {
  key: string;
  value: string;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  /** Newest seq handed out; the next mutation gets seq + 1. */
  seq: Generated<number>;
  created_at: number;
  settings: Generated<string>;
}

/** Current state of every live path: files and directories (explicit or implied by a file). */
export interface EntriesTable {
  workspace_id: string;
  path: string;
  parent: string;
  type: 'file' | 'directory';
  seq: number;
  size: number;
  hash: string | null;
  content_type: string | null;
  author: string;
  session: string | null;
  modified_at: number;
}

/** Every version of every path, tombstones included; immutable once written. */
export interface VersionsTable {
  workspace_id: string;
  path: string;
  seq: number;
  op: string;
  type: 'file' | 'directory';
  deleted: number;
  hash: string | null;
  size: number;
  content_type: string | null;
  author: string;
  session: string | null;
  message: string | null;
  origin_path: string | null;
  origin_seq: number | null;
  created_at: number;
}

/** Registry of all content: small content inline (`data`), large content in the BlobStore. */
export interface BlobsTable {
  hash: string;
  size: number;
  location: 'inline' | 'store';
  data: Uint8Array | null;
  chunk_size: number | null;
  chunks: Uint8Array | null;
  created_at: number;
}

export interface Database {
  meta: MetaTable;
  workspaces: WorkspacesTable;
  entries: EntriesTable;
  versions: VersionsTable;
  blobs: BlobsTable;
}
