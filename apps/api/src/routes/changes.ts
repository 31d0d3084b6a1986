/**
 * The change feed: pages of a workspace's changes (`?after=&limit=`), long polling (`&wait=S`),
 * and a live Server-Sent Events stream (`Accept: text/event-stream`) resumable by Last-Event-ID.
 */
import { type ChangeEvent, type ChangesPage, type Satchel, SatchelError } from '@satchel/core';
import { ListChangesOptionsSchema } from '@satchel/core/schemas';
import { type Context, Hono } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { queryInt, queryNumber, sessionOption, validate } from '../input.js';
import { isFault, toProblem } from '../problem.js';

/**
 * Resolves `work`, or null as soon as `signal` aborts. An abandoned call keeps running in core
 * until its wait ends; its outcome is dropped.
 */
async function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | null> {
  work.catch(() => undefined);
  if (signal.aborted) return null;
  let cleanup = () => {};
  const aborted = new Promise<null>((resolve) => {
    const onAbort = () => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    cleanup = () => signal.removeEventListener('abort', onAbort);
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    cleanup();
  }
}

type ChangesOptions = Parameters<Satchel['listChanges']>[1];

/**
 * The next page after `after`, waiting up to `waitSeconds` for one, with the caller's access
 * checked again on the way: the key is re-authenticated (revoked, expired → UNAUTHENTICATED) and
 * the read re-authorised (membership or scope gone → NOT_FOUND/FORBIDDEN) at least every
 * `recheckSeconds` while waiting and before any event is returned — events that arrived during
 * a wait are read again by a call authorised after it. Throws what a fresh request would get;
 * null when `stop` aborts. Cost: one key lookup per slice of `recheckSeconds`, and one more
 * lookup and read per batch of events.
 */
async function watchedPage(
  reauthenticate: () => Promise<Satchel>,
  ws: string,
  options: ChangesOptions & { after?: number | undefined },
  waitSeconds: number,
  recheckSeconds: number,
  stop: AbortSignal,
): Promise<ChangesPage | null> {
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    const satchel = await reauthenticate();
    const slice = Math.max(0, Math.min(recheckSeconds, (deadline - Date.now()) / 1000));
    const page = await unlessAborted(
      satchel.listChanges(ws, { ...options, waitSeconds: slice }),
      stop,
    );
    if (page === null) return null;
    if (page.events.length > 0) {
      if (slice === 0) return page;
      return (await reauthenticate()).listChanges(ws, { ...options, waitSeconds: 0 });
    }
    if (Date.now() >= deadline) return page;
  }
}

/** Where a feed starts: Last-Event-ID (a reconnecting EventSource) wins over `?after=`. */
function startAfter(c: Context<ApiEnv>): number | undefined {
  const lastEventId = c.req.header('Last-Event-ID');
  if (lastEventId === undefined) return queryInt(c, 'after');
  if (!/^\d{1,15}$/.test(lastEventId.trim())) {
    throw new SatchelError('INVALID_INPUT', 'invalid Last-Event-ID: must be a seq', {
      field: 'Last-Event-ID',
    });
  }
  return Number(lastEventId.trim());
}

/**
 * Writes events as SSE `change` events. Only the last event of each change (seq) carries
 * `id: <seq>`: a client that disconnects inside a multi-path change resumes before it, never
 * after part of it.
 */
async function writeEvents(stream: SSEStreamingApi, events: readonly ChangeEvent[]): Promise<void> {
  for (const [i, event] of events.entries()) {
    const last = events[i + 1]?.seq !== event.seq;
    await stream.writeSSE({
      event: 'change',
      data: JSON.stringify(event),
      ...(last ? { id: String(event.seq) } : {}),
    });
  }
}

/** Route /v1/workspaces/:ws/changes. */
export function changeRoutes(config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/workspaces/:ws/changes', async (c) => {
    const satchel = c.get('satchel');
    const ws = c.req.param('ws');
    const wait = queryNumber(c, 'wait');
    const options = validate(
      ListChangesOptionsSchema,
      {
        ...sessionOption(c),
        after: startAfter(c),
        limit: queryInt(c, 'limit'),
        path: c.req.query('path'),
        waitSeconds:
          wait === undefined
            ? undefined
            : validate(ListChangesOptionsSchema.shape.waitSeconds, wait, 'wait'),
      },
      'query',
    );
    // Closing the server or the client going away ends a long poll or a stream.
    const stop = AbortSignal.any([config.signal, c.req.raw.signal]);
    c.header('Vary', 'Accept');
    const live =
      c.req.method === 'GET' && (c.req.header('Accept') ?? '').includes('text/event-stream');
    const reauthenticate = c.get('reauthenticate');
    const recheck = config.accessRecheckSeconds;
    if (!live) {
      const wait = options.waitSeconds ?? 0;
      const page =
        wait > 0
          ? await watchedPage(reauthenticate, ws, options, wait, recheck, stop)
          : await unlessAborted(satchel.listChanges(ws, options), stop);
      return c.json(page ?? { events: [], cursor: options.after ?? 0 });
    }
    // The first page is read before the stream opens, so an unknown workspace or a refusal is
    // an ordinary problem response rather than a 200 stream that fails.
    const first = await satchel.listChanges(ws, { ...options, waitSeconds: 0 });
    return streamSSE(c, async (stream) => {
      const gone = new AbortController();
      stream.onAbort(() => gone.abort());
      const done = AbortSignal.any([stop, gone.signal]);
      let page: ChangesPage | null = first;
      try {
        while (page !== null) {
          await writeEvents(stream, page.events);
          const after: number = page.cursor;
          page = await watchedPage(
            reauthenticate,
            ws,
            { ...options, after },
            config.heartbeatSeconds,
            recheck,
            done,
          );
          // A wait that timed out: a comment keeps proxies from closing an idle connection.
          if (page !== null && page.events.length === 0) await stream.write(': keep-alive\n\n');
        }
      } catch (error) {
        const requestId = c.get('requestId');
        if (isFault(error)) config.logFault({ requestId, method: 'GET', path: c.req.path, error });
        await stream.writeSSE({
          event: 'error',
          data: JSON.stringify(toProblem(error, requestId)),
        });
      }
    });
  });

  return app;
}
