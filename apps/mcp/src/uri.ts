/** Resource URIs of files: `satchel://<workspace>/<path>`, each path segment percent-encoded. */
import { SatchelError, validateWorkspaceName } from '@satchel/core';
import { checkPath } from './tool.js';

export const URI_SCHEME = 'satchel:';
export const URI_TEMPLATE = 'satchel://{workspace}/{+path}';

/** The URI of `path` (canonical, absolute) in `workspace`. */
export function fileUri(workspace: string, path: string): string {
  const segments = path.split('/').slice(1).map(encodeURIComponent);
  return `satchel://${workspace}/${segments.join('/')}`;
}

/**
 * The workspace and canonical path a file URI names. INVALID_INPUT for another scheme or a
 * malformed URI; INVALID_PATH (through core's path rules) for a bad path, dot segments included
 * however they are escaped.
 */
export function parseFileUri(uri: string): { workspace: string; path: string } {
  const match = /^satchel:\/\/([^/?#]+)(\/[^?#]*)$/.exec(uri);
  if (match === null) {
    throw new SatchelError(
      'INVALID_INPUT',
      `not a Satchel file URI: ${JSON.stringify(uri)}; expected satchel://<workspace>/<path>`,
      { field: 'uri' },
    );
  }
  const workspace = validateWorkspaceName(match[1]);
  const raw = match[2] ?? '/';
  let decoded: string;
  try {
    decoded = raw.split('/').map(decodeURIComponent).join('/');
  } catch {
    throw new SatchelError('INVALID_PATH', `invalid percent-encoding in ${JSON.stringify(uri)}`, {
      path: raw,
      reason: 'bad_escape',
    });
  }
  // Check the raw form too: "%2e%2e" decodes to "..", which checkPath then refuses.
  checkPath(raw);
  return { workspace, path: checkPath(decoded) };
}
