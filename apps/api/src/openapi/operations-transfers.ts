/** The route table, large files: a part of a resumable upload, and the signed URLs themselves. */
import { z } from 'zod';
import { SESSION_HEADER } from './operations-files.js';
import type { OperationSpec } from './spec.js';

const TOKEN = 'the token of a signed URL is its only authority: no Authorization header';

export const TRANSFER_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'PATCH',
    path: '/v1/workspaces/:ws/uploads/:id',
    tag: 'uploads',
    summary: 'Send the bytes of a resumable upload from an offset',
    description:
      'The body is the file from `Upload-Offset` on (any length up to the declared size). ' +
      'A body cut off midway keeps the bytes that arrived. 409 with `offset` when the upload ' +
      'is elsewhere; `GET`/`HEAD` of the upload tells the offset (`Upload-Offset`).',
    params: [
      {
        name: 'Upload-Offset',
        in: 'header',
        schema: z.string(),
        description: 'byte offset the body starts at: the upload’s current offset',
        required: true,
      },
      SESSION_HEADER,
    ],
    body: { raw: 'application/octet-stream' },
    responses: {
      200: {
        description: 'the upload with its new offset (also as `Upload-Offset`)',
        content: [{ json: 'Upload' }],
      },
    },
    errors: [400, 403, 404, 409, 413],
  },
  {
    method: 'PUT',
    path: '/signed/:token',
    tag: 'uploads',
    summary: 'Write through a signed upload URL (curl -T FILE URL)',
    description: `${TOKEN}. Single use; bound to the path, and to the size and SHA-256 it names.`,
    auth: 'public',
    body: { raw: 'application/octet-stream' },
    responses: { 200: { description: 'the new version', content: [{ json: 'FileInfo' }] } },
    errors: [400, 403, 404, 409, 412, 413, 423],
  },
  {
    method: 'GET',
    path: '/signed/:token',
    tag: 'uploads',
    summary: 'Read through a signed download URL (curl -o FILE URL)',
    description: `${TOKEN}. Single use unless signed reusable; always an attachment.`,
    auth: 'public',
    responses: {
      200: {
        description: 'the file content',
        content: [{ media: 'application/octet-stream', format: 'binary' }],
      },
    },
    errors: [403, 404],
  },
];
