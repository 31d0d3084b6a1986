/** Rows and paths the MetadataStore contract writes (metadata-store.contract.ts). */
import { createHash } from 'node:crypto';
import { parentOf } from '@satchel/client/paths.js';
import type { BlobRecord, EntryRecord, VersionRecord } from './metadata-store.js';

export const NOW = 1_700_000_000_000;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function inlineBlob(text: string, createdAt = NOW): BlobRecord {
  return {
    hash: sha256(text),
    size: Buffer.byteLength(text),
    location: 'inline',
    data: Buffer.from(text),
    chunkSize: null,
    chunks: null,
    createdAt: createdAt,
  };
}

export function fileVersion(
  workspaceId: string,
  path: string,
  seq: number,
  hash: string,
): VersionRecord {
  return {
    workspaceId,
    path,
    seq,
    op: 'write',
    type: 'file',
    deleted: false,
    hash,
    size: 1,
    contentType: 'text/plain',
    author: 'tester',
    session: null,
    message: null,
    origin: null,
    createdAt: NOW + seq,
  };
}

export function entry(
  workspaceId: string,
  path: string,
  type: 'file' | 'directory',
  hash: string | null,
): EntryRecord {
  return {
    workspaceId,
    path,
    parent: parentOf(path),
    type,
    seq: 1,
    size: hash === null ? 0 : 1,
    hash,
    contentType: hash === null ? null : 'text/plain',
    author: 'tester',
    session: null,
    modifiedAt: NOW,
  };
}

/** Byte-wise (UTF-8) order, the order the store promises for paths. */
export function byteOrder(paths: readonly string[]): string[] {
  return [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/**
 * Paths chosen to catch non-byte-wise ordering: '-' (0x2d) and '.' (0x2e) sort before '/' (0x2f)
 * and '0' (0x30) right after it; U+FF61 sorts before U+1F600 in UTF-8 but after it in UTF-16.
 */
export const DIRECTORIES = ['/a', '/a/b'];
export const FILES = [
  '/a/b/c',
  '/a/b-c',
  '/a/\u00e9',
  '/a/\uff61',
  '/a/\u{1f600}',
  '/a/z',
  '/a-b',
  '/a.b',
  '/a0',
  '/b',
  '/\u00e9',
];
