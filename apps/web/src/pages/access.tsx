/**
 * A workspace's access page (docs/web.md, "Access"): members and their roles (owners change
 * and remove them), the signed-in user's API keys for this workspace (create narrowed, secret
 * shown once, revoke), and live locks with their countdown (owners break them).
 */
import type { CreatedKey, KeyInfo, Lock, Member, Role, Satchel } from '@satchel/core';
import { type Context, Hono } from 'hono';
import { choiceField, remaining, textField } from '../form-fields.js';
import { when } from '../format.js';
import { Layout } from '../layout.js';
import { requireSignIn, signedForm } from '../requests.js';
import type { SignedIn, WebEnv } from '../web-env.js';
import { WorkspaceNav } from './manage-nav.js';

const ROLES: readonly Role[] = ['owner', 'editor', 'viewer'];

function Csrf({ token }: { readonly token: string }) {
  return <input type="hidden" name="csrf" value={token} />;
}

function base(ws: string): string {
  return `/w/${encodeURIComponent(ws)}`;
}

function RoleSelect({ id, value }: { readonly id: string; readonly value?: Role | undefined }) {
  return (
    <select id={id} name="role">
      {ROLES.map((role) => (
        <option value={role} selected={role === value}>
          {role}
        </option>
      ))}
    </select>
  );
}

interface MembersProps {
  readonly ws: string;
  readonly members: readonly Member[];
  readonly owner: boolean;
  readonly csrf: string;
}

function Members({ ws, members, owner, csrf }: MembersProps) {
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <section class="scroll" aria-label="Members" tabindex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">Kind</th>
              <th scope="col">Role</th>
              <th scope="col">Since</th>
              {owner && <th scope="col">Change</th>}
            </tr>
          </thead>
          <tbody>
            {members.map((m, i) => (
              <tr>
                <td>{m.principal}</td>
                <td>{m.kind}</td>
                <td class="role">{m.role}</td>
                <td>
                  <time datetime={m.since}>{when(m.since)}</time>
                </td>
                {owner && (
                  <td>
                    <form method="post" action={`${base(ws)}/members`} class="inline">
                      <Csrf token={csrf} />
                      <input type="hidden" name="principal" value={m.principal} />
                      <label for={`role-${i}`} class="visually-hidden">
                        {`Role of ${m.principal}`}
                      </label>
                      <RoleSelect id={`role-${i}`} value={m.role} />
                      <button type="submit">Set role</button>
                    </form>
                    <form method="post" action={`${base(ws)}/members/remove`} class="inline">
                      <Csrf token={csrf} />
                      <input type="hidden" name="principal" value={m.principal} />
                      <button type="submit" aria-label={`Remove ${m.principal}`}>
                        Remove
                      </button>
                    </form>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {owner && (
        <form method="post" action={`${base(ws)}/members`} class="stack">
          <h3>Invite someone</h3>
          <Csrf token={csrf} />
          <label for="invite-name">Name</label>
          <input id="invite-name" name="principal" required autocomplete="off" />
          <label for="invite-role">Role</label>
          <RoleSelect id="invite-role" value="viewer" />
          <button type="submit">Invite</button>
        </form>
      )}
    </section>
  );
}

function scopeOf(key: KeyInfo): string {
  const parts = [key.role === null ? 'any role' : `at most ${key.role}`];
  if (key.pathPrefixes !== null) parts.push(`changes under ${key.pathPrefixes.join(', ')}`);
  if (key.readOnly) parts.push('read-only');
  return parts.join('; ');
}

interface KeysProps {
  readonly ws: string;
  readonly keys: readonly KeyInfo[];
  readonly created: CreatedKey | null;
  readonly csrf: string;
}

function Keys({ ws, keys, created, csrf }: KeysProps) {
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Your API keys for {ws}</h2>
      {created !== null && (
        <div class="notice" role="status">
          <p>
            Key <strong>{created.info.label ?? created.info.id}</strong> created. Copy its secret
            now: it is not shown again.
          </p>
          <label for="new-key">Secret</label>
          <input id="new-key" class="hash secret" value={created.key} readonly />
        </div>
      )}
      {keys.length === 0 ? (
        <p>You have no key limited to this workspace.</p>
      ) : (
        <ul class="plain">
          {keys.map((key) => (
            <li>
              <strong>{key.label ?? key.id}</strong>: {scopeOf(key)}; made {when(key.createdAt)}
              <form method="post" action={`${base(ws)}/keys/revoke`} class="inline">
                <Csrf token={csrf} />
                <input type="hidden" name="id" value={key.id} />
                <button type="submit" aria-label={`Revoke key ${key.label ?? key.id}`}>
                  Revoke
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={`${base(ws)}/keys`} class="stack">
        <h3>Create a key for this workspace only</h3>
        <Csrf token={csrf} />
        <label for="key-label">Label</label>
        <input id="key-label" name="label" maxlength={200} />
        <label for="key-role">Role at most</label>
        <RoleSelect id="key-role" value="editor" />
        <label for="key-prefix">Changes only under (optional)</label>
        <input id="key-prefix" name="pathPrefix" placeholder="/agent-output" />
        <label class="check">
          <input type="checkbox" name="readOnly" value="1" /> Read-only
        </label>
        <button type="submit">Create key</button>
      </form>
    </section>
  );
}

interface LocksProps {
  readonly ws: string;
  readonly locks: readonly Lock[];
  readonly owner: boolean;
  readonly csrf: string;
}

/** Live locks; refreshed every 5 s by htmx, so the countdown moves without a script of ours. */
export function Locks({ ws, locks, owner, csrf }: LocksProps) {
  return (
    <section
      id="locks"
      aria-labelledby="locks-title"
      hx-get={`${base(ws)}/locks`}
      hx-trigger="every 5s"
      hx-swap="outerHTML"
    >
      <h2 id="locks-title">Locks</h2>
      {locks.length === 0 ? (
        <p>No file is locked.</p>
      ) : (
        <ul class="plain">
          {locks.map((lock) => (
            <li>
              <code>{lock.path}</code> ({lock.scope}, {lock.mode}) held by{' '}
              <strong>{lock.holder}</strong>
              {lock.session !== null && ` in session ${lock.session}`}; expires{' '}
              <time datetime={lock.expiresAt}>{remaining(lock.expiresAt)}</time>
              {owner && (
                <form method="post" action={`${base(ws)}/locks/break`} class="inline">
                  <Csrf token={csrf} />
                  <input type="hidden" name="id" value={lock.id} />
                  <button type="submit" aria-label={`Break the lock on ${lock.path}`}>
                    Break
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

async function isOwner(satchel: Satchel, ws: string, principal: string): Promise<boolean> {
  const [members, me] = await Promise.all([satchel.listMembers(ws), satchel.whoami()]);
  return me.admin || members.some((m) => m.principal === principal && m.role === 'owner');
}

async function accessPage(
  c: Context<WebEnv>,
  signedIn: SignedIn,
  ws: string,
  created: CreatedKey | null = null,
) {
  const { satchel, principal, csrf } = signedIn;
  const [members, keys, locks, me] = await Promise.all([
    satchel.listMembers(ws),
    satchel.listKeys({}),
    satchel.listLocks(ws, {}),
    satchel.whoami(),
  ]);
  const role = members.find((m) => m.principal === principal)?.role ?? null;
  const owner = me.admin || role === 'owner';
  const mine = keys.filter((k) => k.revokedAt === null && k.workspaces?.includes(ws) === true);
  return c.html(
    <Layout title={`Access · ${ws}`} signedIn={signedIn}>
      <h1>Access to {ws}</h1>
      <WorkspaceNav ws={ws} current="access" />
      {c.req.query('claimed') === '1' && (
        <p class="notice" role="status">
          Transfer accepted: {ws} is yours now.
        </p>
      )}
      <p>
        Your role: <strong id="my-role">{role ?? (me.admin ? 'admin' : 'none')}</strong>
      </p>
      <Members ws={ws} members={members} owner={owner} csrf={csrf} />
      <Keys ws={ws} keys={mine} created={created} csrf={csrf} />
      <Locks ws={ws} locks={locks} owner={owner} csrf={csrf} />
    </Layout>,
    created === null ? 200 : 201,
  );
}

export function accessRoutes(): Hono<WebEnv> {
  const app = new Hono<WebEnv>();
  const back = (ws: string) => `${base(ws)}/access`;

  app.get('/w/:ws/access', (c) => accessPage(c, requireSignIn(c), c.req.param('ws')));

  app.get('/w/:ws/locks', async (c) => {
    const { satchel, principal, csrf } = requireSignIn(c);
    const ws = c.req.param('ws');
    const [locks, owner] = await Promise.all([
      satchel.listLocks(ws, {}),
      isOwner(satchel, ws, principal),
    ]);
    return c.html(<Locks ws={ws} locks={locks} owner={owner} csrf={csrf} />);
  });

  app.post('/w/:ws/members', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    const role = choiceField(form, 'role', ROLES) ?? 'viewer';
    await signedIn.satchel.setMember(ws, textField(form, 'principal'), role);
    return c.redirect(back(ws), 303);
  });

  app.post('/w/:ws/members/remove', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    await signedIn.satchel.removeMember(ws, textField(form, 'principal'));
    return c.redirect(back(ws), 303);
  });

  app.post('/w/:ws/keys', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    const label = (form.label ?? '').trim();
    const prefix = (form.pathPrefix ?? '').trim();
    const created = await signedIn.satchel.createKey({
      workspaces: [ws],
      role: choiceField(form, 'role', ROLES) ?? 'viewer',
      readOnly: form.readOnly === '1',
      ...(label === '' ? {} : { label }),
      ...(prefix === '' ? {} : { pathPrefixes: [prefix] }),
    });
    return accessPage(c, signedIn, ws, created);
  });

  app.post('/w/:ws/keys/revoke', async (c) => {
    const { signedIn, form } = await signedForm(c);
    await signedIn.satchel.revokeKey(textField(form, 'id'));
    return c.redirect(back(c.req.param('ws')), 303);
  });

  app.post('/w/:ws/locks/break', async (c) => {
    const { signedIn, form } = await signedForm(c);
    const ws = c.req.param('ws');
    await signedIn.satchel.breakLock(ws, textField(form, 'id'));
    return c.redirect(back(ws), 303);
  });

  return app;
}
