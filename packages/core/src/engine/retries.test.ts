/**
 * Idempotent retries: a write pinned by ifMatch whose content is already the head's answers with
 * the head (`unchanged: true`) instead of PRECONDITION_FAILED, claiming no seq and writing nothing.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openTemp } from '../test-support/temp.js';

async function retried() {
  const { satchel } = await openTemp();
  const first = await satchel.writeFile('ws', '/report.md', 'draft');
  const second = await satchel.writeFile('ws', '/report.md', 'final', {
    ifMatch: first.seq,
    session: 'run-1',
  });
  return { satchel, first, second };
}

describe('a retried conditional write', () => {
  it('answers with the head, unchanged, when its content is already there', async () => {
    const { satchel, first, second } = await retried();
    // The answer to `second` was lost: the agent sends the same write again.
    const again = await satchel.writeFile('ws', '/report.md', 'final', {
      ifMatch: first.seq,
      session: 'run-1',
    });
    expect(again).toMatchObject({ seq: second.seq, hash: second.hash, unchanged: true });
    expect(second.unchanged).toBeUndefined();
    const versions = await satchel.listVersions('ws', '/report.md');
    expect(versions.items.map((v) => v.seq)).toEqual([second.seq, first.seq]);
    // No seq was claimed: the workspace's head is still the second write, and the next write
    // takes the very next number.
    expect((await satchel.getWorkspace('ws')).seq).toBe(second.seq);
    const next = await satchel.writeFile('ws', '/other.md', 'x');
    expect(next.seq).toBe(second.seq + 1);
    // Audited as a successful write that names the head it found.
    const audit = await satchel.listAudit({ workspace: 'ws', limit: 1000 });
    const writes = audit.items.filter((e) => e.session === 'run-1');
    expect(writes.map((e) => [e.action, e.outcome, e.seq])).toEqual([
      ['writeFile', 'ok', second.seq],
      ['writeFile', 'ok', second.seq],
    ]);
  });

  it('stays a conflict from another session, or when the head was not written on that base', async () => {
    const { satchel, first, second } = await retried();
    // The same key in another session: a worker that lost the race, not a retry.
    await expect(
      satchel.writeFile('ws', '/report.md', 'final', { ifMatch: first.seq, session: 'run-2' }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { actual: second.seq } });
    // `second` was written on `first`: a write pinned to an even older base is no retry of it.
    const third = await satchel.writeFile('ws', '/report.md', 'final', { session: 'run-1' });
    await expect(
      satchel.writeFile('ws', '/report.md', 'final', { ifMatch: first.seq, session: 'run-1' }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { actual: third.seq } });
  });

  it('still refuses a stale write whose content differs, or whose file is gone', async () => {
    const { satchel, first } = await retried();
    await expect(
      satchel.writeFile('ws', '/report.md', 'something else', { ifMatch: first.seq }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { actual: first.seq + 1 } });
    await satchel.remove('ws', '/report.md');
    await expect(
      satchel.writeFile('ws', '/report.md', 'final', { ifMatch: first.seq }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
  });

  it("stays a conflict when another principal wrote that content: it is not the caller's retry", async () => {
    const { satchel, first, second } = await retried();
    const engine = satchel;
    await engine.createPrincipal({ name: 'bob', kind: 'agent' });
    await engine.setMember('ws', 'bob', 'editor');
    const bob = engine.as(
      await engine.authenticate((await engine.createKey({ principal: 'bob' })).key),
    );
    await expect(
      bob.writeFile('ws', '/report.md', 'final', { ifMatch: first.seq }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', data: { actual: second.seq } });
  });

  it('writes a new version as before when ifMatch is the head, even with the same content', async () => {
    const { satchel, second } = await retried();
    const same = await satchel.writeFile('ws', '/report.md', 'final', { ifMatch: second.seq });
    expect(same.seq).toBe(second.seq + 1);
    expect(same.unchanged).toBeUndefined();
  });

  it('is recognised for streamed content, write by hash and batches too', async () => {
    const { satchel, first, second } = await retried();
    const streamed = await satchel.writeFile(
      'ws',
      '/report.md',
      Readable.from([Buffer.from('final')]),
      {
        ifMatch: first.seq,
      },
    );
    expect(streamed).toMatchObject({ seq: second.seq, unchanged: true });
    const byHash = await satchel.writeFileByHash('ws', '/report.md', second.hash ?? '', {
      ifMatch: first.seq,
    });
    expect(byHash).toMatchObject({ seq: second.seq, unchanged: true });
    const batch = await satchel.writeFiles('ws', [
      { path: '/report.md', content: 'final', ifMatch: first.seq },
      { path: '/new.md', content: 'new' },
    ]);
    expect(batch[0]).toMatchObject({ seq: second.seq, unchanged: true });
    expect(batch[1]?.seq).toBe(second.seq + 1);
  });

  it('stays refused under an exclusive lock it does not present', async () => {
    const { satchel, first } = await retried();
    const lock = await satchel.acquireLock('ws', { path: '/report.md' });
    await expect(
      satchel.writeFile('ws', '/report.md', 'final', { ifMatch: first.seq }),
    ).rejects.toMatchObject({ code: 'LOCKED' });
    const fenced = await satchel.writeFile('ws', '/report.md', 'final', {
      ifMatch: first.seq,
      lockToken: lock.token,
    });
    expect(fenced.unchanged).toBe(true);
  });

  it('does not swallow concurrent appends of the same bytes (their pins name a base)', async () => {
    const { satchel } = await openTemp();
    // Above the inline threshold, so appends assemble outside the transaction and retry on a
    // moved head: each retry is pinned to the head it read.
    const base = Buffer.alloc(200 * 1024, 'a');
    await satchel.writeFile('ws', '/log.txt', base);
    await Promise.all(Array.from({ length: 6 }, () => satchel.appendFile('ws', '/log.txt', 'x')));
    expect((await satchel.stat('ws', '/log.txt')).size).toBe(base.length + 6);
  });
});
