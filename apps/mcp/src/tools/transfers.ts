/**
 * create_upload_url, create_download_url: move a large file without passing its bytes through
 * the model. The agent hands the URL to a command in its sandbox (`curl -T file URL`,
 * `curl -o file URL`); no API key travels with it.
 */
import {
  type AnyTool,
  checkFilePath,
  checkPath,
  defineTool,
  optionsOf,
  PathArg,
  resultOf,
  WorkspaceArg,
} from '../tool.js';

const uploadOptions = optionsOf('createUploadUrl').shape;
const downloadOptions = optionsOf('createDownloadUrl').shape;
const EXPIRES = 'seconds, default 900';

const createUploadUrl = defineTool({
  name: 'create_upload_url',
  title: 'Create upload URL',
  description:
    'A short-lived URL to upload a large or binary file outside the chat: curl -T FILE URL.',
  operation: 'createUploadUrl',
  hints: { destructive: true, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    size: uploadOptions.size.describe('exact bytes'),
    sha256: uploadOptions.sha256,
    expiresIn: uploadOptions.expiresIn.describe(EXPIRES),
    ifMatch: uploadOptions.ifMatch,
    ifNoneMatch: uploadOptions.ifNoneMatch.describe('"*": create only'),
  },
  output: resultOf('createUploadUrl').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const { workspace: _ws, path, ...options } = args;
    const created = await ctx.satchel.createUploadUrl(ws, checkFilePath(path), options);
    const signed = { ...created, url: ctx.absoluteUrl(created.url) };
    return {
      structured: signed,
      text: `curl -T LOCAL_FILE '${signed.url}'\n(expires ${signed.expiresAt}; single use)`,
    };
  },
});

const createDownloadUrl = defineTool({
  name: 'create_download_url',
  title: 'Create download URL',
  description: 'A short-lived URL to fetch one file outside the conversation: curl -o FILE URL.',
  operation: 'createDownloadUrl',
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    version: downloadOptions.version,
    expiresIn: downloadOptions.expiresIn.describe(EXPIRES),
    reusable: downloadOptions.reusable.describe('default: single use'),
  },
  output: resultOf('createDownloadUrl').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const { workspace: _ws, path, ...options } = args;
    const created = await ctx.satchel.createDownloadUrl(ws, checkPath(path), options);
    const signed = { ...created, url: ctx.absoluteUrl(created.url) };
    return {
      structured: signed,
      text: `curl -o LOCAL_FILE '${signed.url}'\n(expires ${signed.expiresAt}${options.reusable ? '' : '; single use'})`,
    };
  },
});

export const transferTools: AnyTool[] = [createUploadUrl, createDownloadUrl];
