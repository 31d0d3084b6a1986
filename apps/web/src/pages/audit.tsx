/**
 * A workspace's audit log (docs/web.md, "Audit log"), a page of entries at a time, oldest first,
 * with the hash chain's verification status (core recomputes it; only admins may ask).
 */
import { type AuditVerificationOut, type Satchel, SatchelError } from '@satchel/core';
import { Hono } from 'hono';
import { when } from '../format.js';
import { Layout } from '../layout.js';
import { requireSignIn } from '../requests.js';
import type { WebEnv } from '../web-env.js';
import { manageHref, WorkspaceNav } from './manage-nav.js';

const AUDIT_PAGE = 50;

async function verification(satchel: Satchel): Promise<AuditVerificationOut | null> {
  try {
    return await satchel.verifyAudit();
  } catch (error) {
    if (error instanceof SatchelError && error.code === 'FORBIDDEN') return null;
    throw error;
  }
}

function Verification({ result }: { readonly result: AuditVerificationOut | null }) {
  if (result === null) {
    return (
      <p class="notice">
        Chain verification: checked by an administrator (<code>satchel audit verify</code>); each
        entry below carries its hash and the hash of the entry before it.
      </p>
    );
  }
  return result.ok ? (
    <p class="notice" role="status">
      Chain verification: <strong>intact</strong> — all {result.entries} entries recomputed
      {result.checkpoint === 'matched' ? ', and the tail matches the checkpoint' : ''}.
    </p>
  ) : (
    <p class="notice" role="alert">
      Chain verification: <strong>broken</strong> at entry {result.index ?? '?'} (
      {result.reason ?? 'unknown reason'}).
    </p>
  );
}

export function auditRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();

  app.get('/w/:ws/audit', async (c) => {
    const signedIn = requireSignIn(c);
    const ws = c.req.param('ws');
    const cursor = c.req.query('cursor');
    const [page, result] = await Promise.all([
      signedIn.satchel.listAudit({
        workspace: ws,
        limit: AUDIT_PAGE,
        ...(cursor === undefined || cursor === '' ? {} : { cursor }),
      }),
      verification(signedIn.satchel),
    ]);
    return c.html(
      <Layout title={`Audit log · ${ws}`} signedIn={signedIn}>
        <h1>Audit log of {ws}</h1>
        <WorkspaceNav ws={ws} current="audit" />
        <Verification result={result} />
        {page.items.length === 0 ? (
          <p>No entries{cursor === undefined ? '' : ' after these'}.</p>
        ) : (
          <section class="scroll" aria-label="Audit entries" tabindex={0}>
            <table>
              <caption class="visually-hidden">Audit entries, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Session</th>
                  <th scope="col">Action</th>
                  <th scope="col">Path</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Hash</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((e) => (
                  <tr>
                    <td class="num">{e.idx}</td>
                    <td>
                      <time datetime={e.time}>{when(e.time)}</time>
                    </td>
                    <td>{e.actor}</td>
                    <td>{e.session ?? '—'}</td>
                    <td>{e.action}</td>
                    <td>{e.path ?? '—'}</td>
                    <td>{e.code === null ? e.outcome : `${e.outcome} (${e.code})`}</td>
                    <td class="hash" title={e.hash}>
                      {e.hash.slice(0, 12)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )}
        <p class="actions">
          {cursor !== undefined && <a href={manageHref(ws, 'audit')}>Oldest entries</a>}
          {page.nextCursor !== null && (
            <a href={`${manageHref(ws, 'audit')}?cursor=${encodeURIComponent(page.nextCursor)}`}>
              Newer entries
            </a>
          )}
        </p>
      </Layout>,
    );
  });

  return app;
}
