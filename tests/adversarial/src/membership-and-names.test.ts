/**
 * Issue 20, items 9 and 12, from the attacker's side over REST:
 * - nobody is made a member without consent: an owner's add is an invitation, so a victim's
 *   "create, ignore 409, write" never lands in a workspace an attacker prepared; and inviting or
 *   removing answers the same whether or not a principal exists (no enumeration of principals);
 * - workspace names are one namespace, so a create of a taken name is CONFLICT — the same body
 *   for a hidden and a visible name — and scanning names that way is throttled to RATE_LIMITED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './support.js';

let world: World;
const keys: Record<string, string> = {};

beforeAll(async () => {
  world = await createWorld();
  for (const name of ['mallory', 'victim', 'prober', 'bystander']) {
    await world.engine.createPrincipal({ name, kind: 'agent' });
    keys[name] = (await world.engine.createKey({ principal: name })).key;
  }
});
afterAll(async () => {
  await world?.close();
});

function as(name: string) {
  const key = keys[name];
  if (key === undefined) throw new Error(`no key for ${name}`);
  return {
    put: (path: string, body: unknown) => world.request('PUT', path, { key, body }),
    post: (path: string, body: unknown = {}) => world.request('POST', path, { key, body }),
    get: (path: string) => world.request('GET', path, { key }),
    del: (path: string) => world.request('DELETE', path, { key }),
  };
}

/** A problem body with what differs between any two requests (its id) and `name` masked. */
async function problem(response: Response, name: string): Promise<unknown> {
  const { requestId: _id, ...rest } = (await response.json()) as Record<string, unknown>;
  return JSON.parse(JSON.stringify(rest).replaceAll(name, 'NAME'));
}

describe('membership needs the invitee’s consent (item 9)', () => {
  it('an attacker’s add is only an invitation: the victim’s create-ignore-409-write does not land', async () => {
    const mallory = as('mallory');
    const victim = as('victim');
    expect((await mallory.post('/v1/workspaces', { name: 'team-reports' })).status).toBe(201);
    const add = await mallory.put('/v1/workspaces/team-reports/members/victim', {
      role: 'editor',
    });
    expect(add.status).toBe(200);
    expect(await add.json()).toMatchObject({ status: 'invited', principal: 'victim' });

    expect((await victim.post('/v1/workspaces', { name: 'team-reports' })).status).toBe(409);
    const write = await world.request('PUT', '/v1/workspaces/team-reports/files/secrets.txt', {
      key: keys.victim ?? null,
      body: 'the victim’s data',
    });
    expect(write.status).toBe(404);
    const members = (await (await mallory.get('/v1/workspaces/team-reports/members')).json()) as {
      items: { principal: string }[];
    };
    expect(members.items.map((m) => m.principal)).toEqual(['mallory']);

    // The victim sees the invitation and may decline it.
    const pending = (await (await victim.get('/v1/invitations')).json()) as {
      items: { id: string; workspace: string; invitedBy: string }[];
    };
    expect(pending.items).toMatchObject([{ workspace: 'team-reports', invitedBy: 'mallory' }]);
    const id = pending.items[0]?.id ?? '';
    expect((await victim.post(`/v1/invitations/${id}/decline`)).status).toBe(204);
    expect((await victim.post(`/v1/invitations/${id}/accept`)).status).toBe(404);
  });

  it('someone else cannot accept an invitation, and the refusal does not say it exists', async () => {
    const mallory = as('mallory');
    const add = await mallory.put('/v1/workspaces/team-reports/members/victim', {
      role: 'viewer',
    });
    const { id } = (await add.json()) as { id: string };
    const stolen = await as('bystander').post(`/v1/invitations/${id}/accept`);
    const unknown = await as('bystander').post('/v1/invitations/no-such-invitation/accept');
    expect(stolen.status).toBe(404);
    expect(await problem(stolen, id)).toEqual(await problem(unknown, 'no-such-invitation'));
  });

  it('inviting and removing answer the same whether or not the principal exists', async () => {
    const mallory = as('mallory');
    const shape = async (name: string) => {
      const response = await mallory.put(`/v1/workspaces/team-reports/members/${name}`, {
        role: 'editor',
      });
      const body = (await response.json()) as Record<string, unknown>;
      return {
        status: response.status,
        keys: Object.keys(body).sort(),
        ...body,
        id: typeof body.id,
        principal: typeof body.principal,
        createdAt: typeof body.createdAt,
        expiresAt: typeof body.expiresAt,
      };
    };
    expect(await shape('no-such-principal')).toEqual(await shape('bystander'));

    // Neither a member nor invited: one answer for a principal and for a name that is nobody's.
    await mallory.del('/v1/workspaces/team-reports/members/no-such-principal');
    await mallory.del('/v1/workspaces/team-reports/members/bystander');
    const nobody = await mallory.del('/v1/workspaces/team-reports/members/no-such-principal');
    const somebody = await mallory.del('/v1/workspaces/team-reports/members/bystander');
    expect(nobody.status).toBe(404);
    expect(await problem(nobody, 'no-such-principal')).toEqual(
      await problem(somebody, 'bystander'),
    );
  });
});

describe('workspace names (item 12)', () => {
  it('a taken name is the same CONFLICT whether the caller may see the workspace or not', async () => {
    const prober = as('prober');
    await world.engine.createWorkspace('hidden-ws');
    expect((await prober.post('/v1/workspaces', { name: 'visible-ws' })).status).toBe(201);
    const visible = await prober.post('/v1/workspaces', { name: 'visible-ws' });
    const hidden = await prober.post('/v1/workspaces', { name: 'hidden-ws' });
    expect(hidden.status).toBe(409);
    expect(visible.status).toBe(409);
    expect(await problem(hidden, 'hidden-ws')).toEqual(await problem(visible, 'visible-ws'));
    // Reading it stays NOT_FOUND: the conflict is all a stranger learns.
    expect((await prober.get('/v1/workspaces/hidden-ws')).status).toBe(404);
  });

  it('a burst of creates on hidden names gets RATE_LIMITED, then every create does', async () => {
    const prober = as('prober');
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      statuses.push((await prober.post('/v1/workspaces', { name: 'hidden-ws' })).status);
    }
    // One conflict was spent by the previous case.
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(statuses.slice(19).every((s) => s === 429)).toBe(true);
    const fresh = await prober.post('/v1/workspaces', { name: 'never-taken-name' });
    expect(fresh.status).toBe(429);
    expect(Number(fresh.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(await fresh.json()).toMatchObject({ code: 'RATE_LIMITED' });

    // Conflicts on one's own workspace cost nothing: "create, ignore 409" stays free.
    const owner = as('mallory');
    for (let i = 0; i < 25; i++) {
      expect((await owner.post('/v1/workspaces', { name: 'team-reports' })).status).toBe(409);
    }
    expect((await owner.post('/v1/workspaces', { name: 'mallory-second' })).status).toBe(201);
  });
});
