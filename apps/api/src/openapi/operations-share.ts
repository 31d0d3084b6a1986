/** The route table, share links as their visitors open them (routes/share.ts): no key. */
import { z } from 'zod';
import type { OperationSpec, ParamSpec, ResponseSpec } from './spec.js';

const TOKEN =
  'the token is the link’s only authority: no Authorization header; every view is audited ' +
  'as `share:<link id>`';

const PASSWORD: ParamSpec = {
  name: 'Satchel-Share-Password',
  in: 'header',
  schema: z.string(),
  description: 'the link’s password, when it has one (or POST it as a form field)',
};

const PAGE: ParamSpec[] = [
  { name: 'cursor', in: 'query', schema: z.string(), description: 'next page of a folder' },
  { name: 'limit', in: 'query', schema: z.number().int(), description: 'page size (default 100)' },
  { name: 'download', in: 'query', schema: z.string(), description: 'any value: attachment' },
];

const VIEW: Readonly<Record<number, ResponseSpec>> = {
  200: {
    description:
      'a file’s bytes (nosniff, CSP sandbox; attachment unless plain text or a raster image), ' +
      'or a folder’s listing',
    content: [{ media: 'application/octet-stream', format: 'binary' }, { json: 'SharedFolder' }],
  },
};

const ERRORS = [400, 401, 403, 404, 410] as const;
const REFUSALS =
  '401 `password_required` / `wrong_password`; 403 `revoked`, `expired`, `download_limit`; ' +
  '404 for an unknown token or a path not under the link; 410 for redacted content.';

function view(method: 'GET' | 'POST', path: string, summary: string): OperationSpec {
  return {
    method,
    path,
    tag: 'share links',
    summary,
    description: `${TOKEN}. ${REFUSALS}`,
    auth: 'public',
    params: method === 'GET' ? [PASSWORD, ...PAGE] : PAGE,
    ...(method === 'POST' ? { body: { json: 'SharePasswordBody' } } : {}),
    responses: VIEW,
    errors: ERRORS,
  };
}

export const SHARE_OPERATIONS: readonly OperationSpec[] = [
  view('GET', '/s/:token', 'Open a share link: the file, or the folder’s listing'),
  view('GET', '/s/:token/*', 'Read or list a path below a shared folder'),
  view('POST', '/s/:token', 'Open a password-protected share link (form or JSON password)'),
  view('POST', '/s/:token/*', 'A path below a password-protected shared folder'),
];
