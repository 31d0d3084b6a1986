/**
 * Share links in the engine: created by writers, opened with no key (the token is the
 * authority), refused when expired, revoked, used up or without the right password, confined
 * to their folder, redacted content unreadable, every view audited as `share:<id>`.
 */
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { describe, expect, it } from 'vitest';
import { openTemp, readAll } from '../test-support/temp.js';
import type { SatchelEngine } from './satchel-engine.js';
import type { ShareView } from './share-link-views.js';

async function member(engine: SatchelEngine, name: string, role: 'viewer' | 'editor' | 'owner') {
  await engine.createPrincipal({ name, kind: 'agent' });
  await engine.setMember('ws', name, role);
  const { key } = await engine.createKey({ principal: name });
  return engine.as(await engine.authenticate(key));
}

async function text(view: ShareView): Promise<string> {
  if (view.type !== 'file') throw new Error(`expected a file, got ${view.type}`);
  return (await readAll(view.file.body)).toString();
}

function tokenOf(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

describe('share links', () => {
  it('open a file with no key, count downloads up to the limit, and audit each view as the link', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/out/report.md', '# Q3\n');
    const link = await satchel.createShareLink('ws', { path: '/out/report.md', maxDownloads: 2 });
    expect(link).toMatchObject({ kind: 'file', hasPassword: false, downloads: 0, state: 'active' });
    expect(link.url).toBe(`/s/${link.token}`);

    expect(await text(await satchel.openShareLink(link.token))).toBe('# Q3\n');
    // A HEAD counts nothing.
    await satchel.openShareLink(link.token, { download: false });
    expect(await text(await satchel.openShareLink(link.token))).toBe('# Q3\n');
    await expect(satchel.openShareLink(link.token)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'download_limit' },
    });
    const [listed] = (await satchel.listShareLinks('ws')).items;
    expect(listed).toMatchObject({ id: link.id, downloads: 2, state: 'used_up' });
    expect(JSON.stringify(listed)).not.toContain(link.token);

    const audit = await satchel.listAudit({ workspace: 'ws', limit: 1000 });
    const views = audit.items.filter((e) => e.action === 'openShareLink');
    expect(views.map((e) => [e.actor, e.outcome, e.path])).toEqual(
      expect.arrayContaining([
        [`share:${link.id}`, 'ok', '/out/report.md'],
        [`share:${link.id}`, 'refused', '/out/report.md'],
      ]),
    );
    expect(views).toHaveLength(4);
  });

  it('refuse unknown tokens, expired and revoked links, and missing or wrong passwords', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { satchel } = await openTemp({ clock: () => now });
    await satchel.writeFile('ws', '/a.txt', 'a');
    const short = await satchel.createShareLink('ws', { path: '/a.txt', expiresIn: 60 });
    const locked = await satchel.createShareLink('ws', {
      path: '/a.txt',
      password: 'correct horse',
    });
    await expect(satchel.openShareLink('shr_nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // The right id with another secret is no link either.
    await expect(
      satchel.openShareLink(`${short.token.slice(0, 21)}${'A'.repeat(43)}`),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });

    await expect(satchel.openShareLink(locked.token)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      data: { reason: 'password_required' },
    });
    await expect(
      satchel.openShareLink(locked.token, { password: 'wrong one' }),
    ).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      data: { reason: 'wrong_password' },
    });
    expect(
      await text(await satchel.openShareLink(locked.token, { password: 'correct horse' })),
    ).toBe('a');

    now += 61_000;
    await expect(satchel.openShareLink(short.token)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'expired' },
    });
    const revoked = await satchel.revokeShareLink('ws', locked.id);
    expect(revoked).toMatchObject({ state: 'revoked', revokedBy: 'admin' });
    await expect(
      satchel.openShareLink(locked.token, { password: 'correct horse' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', data: { reason: 'revoked' } });
  });

  it('list a shared folder in pages, read files under it, and refuse paths outside it', async () => {
    const { satchel } = await openTemp();
    for (const name of ['a', 'b', 'c']) await satchel.writeFile('ws', `/out/${name}.txt`, name);
    await satchel.writeFile('ws', '/out/sub/d.txt', 'd');
    await satchel.writeFile('ws', '/secret.txt', 'no');
    const link = await satchel.createShareLink('ws', { path: '/out' });
    expect(link.kind).toBe('directory');

    const first = await satchel.openShareLink(link.token, { limit: 2 });
    if (first.type !== 'directory') throw new Error('expected a folder');
    expect(first.folder.items.map((i) => i.path)).toEqual(['/a.txt', '/b.txt']);
    const rest = await satchel.openShareLink(link.token, { cursor: first.folder.nextCursor ?? '' });
    if (rest.type !== 'directory') throw new Error('expected a folder');
    expect(rest.folder.items.map((i) => i.path)).toEqual(['/c.txt', '/sub']);
    expect(await text(await satchel.openShareLink(link.token, { path: '/sub/d.txt' }))).toBe('d');

    await expect(
      satchel.openShareLink(link.token, { path: '/../secret.txt' }),
    ).rejects.toMatchObject({
      code: 'INVALID_PATH',
    });
    await expect(satchel.openShareLink(link.token, { path: '/secret.txt' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('keep redacted content unreadable', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/env', 'KEY=1');
    const link = await satchel.createShareLink('ws', { path: '/env' });
    await satchel.redact('ws', '/env', { all: true });
    await expect(satchel.openShareLink(link.token)).rejects.toMatchObject({ code: 'REDACTED' });
  });

  it('are created by editors and owners; revoked by their creator or an owner', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'a');
    const viewer: Satchel = await member(satchel, 'reader', 'viewer');
    const editor = await member(satchel, 'agent', 'editor');
    const other = await member(satchel, 'agent-2', 'editor');
    await expect(viewer.createShareLink('ws', { path: '/a.txt' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(viewer.listShareLinks('ws')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const link = await editor.createShareLink('ws', { path: '/a.txt' });
    expect(link.createdBy).toBe('agent');
    await expect(other.revokeShareLink('ws', link.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(editor.revokeShareLink('ws', link.id)).resolves.toMatchObject({
      state: 'revoked',
    });
    await expect(satchel.createShareLink('ws', { path: '/none' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      satchel.createShareLink('ws', { path: '/a.txt', expiresIn: 91 * 24 * 3600 }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(tokenOf(link.url)).toBe(link.token);
  });
});
