/**
 * Uploads from the browser: drag and drop (or the file input, for the keyboard) onto a folder
 * page; assets/upload.js sends each file through the engine's resumable uploads — create, then
 * parts at an offset, then complete — over these same-origin routes, with the session cookie
 * and the CSRF token. A part cut off by a dropped connection keeps the bytes that arrived; the
 * script asks for the offset and goes on from there (the REST API's tus-style routes, for
 * people instead of keys).
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import type { Upload } from '@satchel/core';
import { SatchelError } from '@satchel/core';
import { type Context, Hono } from 'hono';
import { href, parentOf } from '../format.js';
import { signedForm } from '../requests.js';
import type { WebEnv } from '../web-env.js';
import { webSession } from './manage.js';

/** The drop zone and file input of a folder page; the script finds it by its id. */
export function UploadForm({
  ws,
  path,
  csrf,
}: {
  readonly ws: string;
  readonly path: string;
  readonly csrf: string;
}) {
  return (
    <section aria-labelledby="upload-title" class="upload">
      <h2 id="upload-title">Upload</h2>
      <div
        id="upload"
        class="dropzone"
        data-endpoint={`/w/${encodeURIComponent(ws)}/uploads`}
        data-folder={path}
        data-csrf={csrf}
      >
        <p>Drop files here, or</p>
        <label for="upload-files" class="button">
          Choose files
        </label>
        <input id="upload-files" type="file" multiple class="visually-hidden" />
        <progress id="upload-progress" max={100} value={0} hidden aria-label="Upload progress" />
        <p id="upload-status" role="status" aria-live="polite" />
      </div>
      <script src="/assets/upload.js" defer />
    </section>
  );
}

function uploadBody(upload: Upload) {
  return { id: upload.id, path: upload.path, size: upload.size, offset: upload.offset };
}

function uploadJson(c: Context<WebEnv>, upload: Upload) {
  return c.json(uploadBody(upload), 200, { 'Upload-Offset': String(upload.offset) });
}

/** The request body; a connection cut mid-body ends it, and what arrived is kept (resume). */
async function* untilCut(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (body === null) return;
  const source = Readable.fromWeb(body as NodeWebStream<Uint8Array>);
  try {
    for await (const piece of source) yield piece as Uint8Array;
  } catch (error) {
    if (error instanceof SatchelError) throw error;
  }
}

function offsetOf(c: Context<WebEnv>): number {
  const raw = c.req.header('Upload-Offset') ?? '';
  if (!/^\d{1,16}$/.test(raw.trim())) {
    throw new SatchelError('INVALID_INPUT', 'Upload-Offset must be a byte offset', {
      field: 'Upload-Offset',
    });
  }
  return Number(raw.trim());
}

/** Parts one user may be sending at once (the API caps uploads per key the same way). */
const MAX_PARTS_IN_FLIGHT = 8;
const partsInFlight = new Map<string, number>();

async function counted<T>(who: string, run: () => Promise<T>): Promise<T> {
  const now = partsInFlight.get(who) ?? 0;
  if (now >= MAX_PARTS_IN_FLIGHT) {
    throw new SatchelError('RATE_LIMITED', 'too many uploads at once: wait for one to finish', {
      retryAfterSeconds: 1,
    });
  }
  partsInFlight.set(who, now + 1);
  try {
    return await run();
  } finally {
    const left = (partsInFlight.get(who) ?? 1) - 1;
    if (left <= 0) partsInFlight.delete(who);
    else partsInFlight.set(who, left);
  }
}

export function uploadRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  // Start: path (in the folder) and size; the session, when given, groups a batch for Undo.
  app.post('/w/:ws/uploads', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    const size = Number(form.size);
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new SatchelError('INVALID_INPUT', 'size must be the file size in bytes', {
        field: 'size',
      });
    }
    const session = /^web-[0-9a-f-]{1,40}$/.test(form.session ?? '')
      ? (form.session as string)
      : webSession();
    const upload = await signedIn.satchel.createUpload(ws, form.path ?? '', { size, session });
    return c.json({ ...uploadBody(upload), session }, 201);
  });

  app.get('/w/:ws/uploads/:id', async (c) => {
    const { signedIn } = await signedForm(c);
    const upload = await signedIn.satchel.getUpload(c.req.param('ws'), c.req.param('id'));
    return uploadJson(c, upload);
  });

  app.patch('/w/:ws/uploads/:id', async (c) => {
    const { signedIn } = await signedForm(c);
    const offset = offsetOf(c);
    const upload = await counted(signedIn.principal, () =>
      signedIn.satchel.appendUpload(
        c.req.param('ws'),
        c.req.param('id'),
        offset,
        untilCut(c.req.raw.body),
      ),
    );
    return uploadJson(c, upload);
  });

  app.post('/w/:ws/uploads/:id/complete', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    const info = await signedIn.satchel.completeUpload(ws, c.req.param('id'));
    const q = new URLSearchParams({ done: form.done ?? `Uploaded ${info.path}.` });
    if (info.session !== null) q.set('undo', info.session);
    return c.json({
      path: info.path,
      size: info.size,
      hash: info.hash,
      next: `${href(ws, 'tree', parentOf(info.path))}?${q}`,
    });
  });

  return app;
}
