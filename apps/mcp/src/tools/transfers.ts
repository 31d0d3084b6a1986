/**
 * create_upload_url, create_download_url: move a large file without passing its bytes through
 * the model. The agent hands the URL to a command in its sandbox (`curl -T file URL`,
 * `curl -o file URL`); no API key travels with it.
 */
import {
  type AnyTool,
  checkPath,
  defineTool,
  optionsOf,
  PathArg,
  resultOf,
  WorkspaceArg,
} from '../tool.js';

const uploadOptions = optionsOf('createUploadUrl').shape;
const downloadOptions = optionsOf('createDownloadUrl').shape;

const createUploadUrl = defineTool({
  name: 'create_upload_url',
  title: 'Create upload URL',
  description:
    'A short-lived, single-use URL that writes one file without an API key: run `curl -T LOCAL_FILE "URL"` in your sandbox (HTTP PUT of the raw bytes). ' +
    'Use it for large or binary files instead of write_file. Pass size and sha256 when you know them: other bytes are then refused. ' +
    'The upload counts as your write (same permissions, versioned, audited); the URL stops working when it expires (default 15 minutes).',
  operation: 'createUploadUrl',
  hints: { destructive: true, idempotent: false },
  input: { workspace: WorkspaceArg, path: PathArg, ...uploadOptions },
  output: resultOf('createUploadUrl').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const { workspace: _ws, path, ...options } = args;
    const signed = await ctx.satchel.createUploadUrl(ws, checkPath(path), options);
    return {
      structured: signed,
      text: `curl -T LOCAL_FILE '${signed.url}'\n(expires ${signed.expiresAt}; single use)`,
    };
  },
});

const createDownloadUrl = defineTool({
  name: 'create_download_url',
  title: 'Create download URL',
  description:
    'A short-lived URL that reads one file without an API key: run `curl -o LOCAL_FILE "URL"` in your sandbox. ' +
    'Use it for large or binary files instead of reading them into the conversation. Single use unless reusable: true; default lifetime 15 minutes.',
  operation: 'createDownloadUrl',
  input: { workspace: WorkspaceArg, path: PathArg, ...downloadOptions },
  output: resultOf('createDownloadUrl').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const { workspace: _ws, path, ...options } = args;
    const signed = await ctx.satchel.createDownloadUrl(ws, checkPath(path), options);
    return {
      structured: signed,
      text: `curl -o LOCAL_FILE '${signed.url}'\n(expires ${signed.expiresAt}${options.reusable ? '' : '; single use'})`,
    };
  },
});

export const transferTools: AnyTool[] = [createUploadUrl, createDownloadUrl];
