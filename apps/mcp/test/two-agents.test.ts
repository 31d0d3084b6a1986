/**
 * The scripted two-agent session of issue 16, over real transports: agent A runs `satchel mcp`
 * over stdio against a real `satchel serve`, agent B and the human dana use Streamable HTTP at
 * its /mcp. The transcript of every call (what the model saw, shortened and normalised) is
 * compared with test/fixtures/two-agents.transcript.txt, so a change in what agents see shows up
 * in review. After an intended change, update the fixture and review its diff:
 *
 *   pnpm --filter @satchel/mcp exec vitest run test/two-agents.test.ts -u
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { RemoteSatchel } from '@satchel/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Served, startServe } from './serve.js';
import { type Agent, type Result, Transcript, textOf } from './transcript.js';

let data: string;
let served: Served;

beforeAll(async () => {
  data = await mkdtemp(join(tmpdir(), 'satchel-two-agents-'));
  served = await startServe(data);
});

afterAll(async () => {
  await served?.close();
  await rm(data, { recursive: true, force: true });
});

/** A principal of `kind` with a key of its own (admin setup, outside the transcript). */
async function principalKey(name: string, kind: 'agent' | 'user'): Promise<string> {
  expect((await served.rest('POST', '/v1/principals', { name, kind })).status).toBe(201);
  const created = await served.rest('POST', '/v1/keys', { principal: name, label: name });
  expect(created.status).toBe(201);
  return ((await created.json()) as { key: string }).key;
}

function ok(result: Result): Record<string, unknown> {
  if (result.isError === true) throw new Error(`unexpected error: ${textOf(result)}`);
  return result.structuredContent ?? {};
}

function errorCode(result: Result): unknown {
  expect(result.isError).toBe(true);
  return (result._meta?.['satchel/error'] as { code?: unknown } | undefined)?.code;
}

const DRAFT = `# Q3 report

## Summary
Revenue grew in every region. TODO: figures

## Regions
The northern region led growth, driven by the new warehouse in Tromsø.
TODO: figures

## Risks
Shipping costs rose sharply in August.
`;

const FOLDERS = 12;
const FILES_PER_FOLDER = 250;
const LARGE_BYTES = 12 * 1024 * 1024;

it('two agents share a workspace over stdio and HTTP, and hand it to a person', async () => {
  const t = new Transcript();
  const keyA = await principalKey('agent-a', 'agent');
  const keyB = await principalKey('agent-b', 'agent');
  const keyDana = await principalKey('dana', 'user');
  const A: Agent = { name: 'A', via: 'stdio', client: await served.connectStdio(keyA, 'agent-a') };
  const B: Agent = { name: 'B', via: 'http', client: await served.connectHttp(keyB, 'agent-b') };

  // A sets up the workspace and invites B, who accepts.
  ok(await t.call(A, 'create_workspace', { name: 'report' }));
  const invited = ok(
    await t.call(A, 'set_member', { workspace: 'report', principal: 'agent-b', role: 'editor' }),
  );
  t.mask(String(invited.invitationId), '<invitation>');
  ok(await t.call(B, 'list_invitations'));
  ok(await t.call(B, 'accept_invitation', { id: invited.invitationId }));
  const first = ok(await t.call(A, 'write_file', { path: '/draft.md', content: DRAFT }));

  // B watches the draft; A takes a lock on it; B is kept out, then waits for the lock.
  const updates: string[] = [];
  const updated = new Promise<void>((resolve) => {
    B.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      resolve();
    });
  });
  await B.client.subscribeResource({ uri: 'satchel://report/draft.md' });
  t.note('B (http) resources/subscribe satchel://report/draft.md');
  const lockA = ok(await t.call(A, 'lock_file', { path: '/draft.md', ttlSeconds: 60 }));
  t.mask(String(lockA.lockId), '<lock A>');
  const kept = await t.call(B, 'write_file', {
    workspace: 'report',
    path: '/draft.md',
    content: 'B was here',
  });
  expect(errorCode(kept)).toBe('LOCKED');
  const waiting = B.client.callTool({
    name: 'lock_file',
    arguments: { workspace: 'report', path: '/draft.md', waitSeconds: 20 },
  });
  ok(
    await t.call(A, 'edit_file', {
      path: '/draft.md',
      edits: [{ oldText: 'Revenue grew in every region.', newText: 'Revenue grew 12% in Q3.' }],
      lockToken: lockA.token,
    }),
  );
  await updated;
  t.received(B, `notifications/resources/updated ${updates[0]}`);
  expect(updates[0]).toBe('satchel://report/draft.md');
  ok(await t.call(A, 'unlock_file', { lockId: lockA.lockId }));
  const lockB = ok((await waiting) as Result);
  t.mask(String(lockB.lockId), '<lock B>');
  t.note(
    `B (http) lock_file {"workspace":"report","path":"/draft.md","waitSeconds":20}, called before A unlocked\n←\n${textOf((await waiting) as Result)}`,
  );
  expect(lockB.token).toBeGreaterThan(Number(lockA.token));
  ok(await t.call(B, 'unlock_file', { workspace: 'report', lockId: lockB.lockId }));

  // B writes on a stale version, and recovers by following the hint.
  const read = ok(await t.call(B, 'read_text_file', { workspace: 'report', path: '/draft.md' }));
  ok(
    await t.call(A, 'edit_file', {
      path: '/draft.md',
      edits: [{ oldText: 'rose sharply in August', newText: 'rose 30% in August' }],
    }),
  );
  const stale = await t.call(B, 'write_file', {
    workspace: 'report',
    path: '/draft.md',
    content: `${String(read.text)}\n## Appendix\nSources: internal ledger.\n`,
    ifMatch: read.seq,
  });
  expect(errorCode(stale)).toBe('PRECONDITION_FAILED');
  const retryWith = Number(/retry with ifMatch (\d+)/.exec(textOf(stale))?.[1]);
  const fresh = ok(await t.call(B, 'read_text_file', { workspace: 'report', path: '/draft.md' }));
  expect(fresh.seq).toBe(retryWith);
  ok(
    await t.call(B, 'write_file', {
      workspace: 'report',
      path: '/draft.md',
      content: `${String(fresh.text)}\n## Appendix\nSources: internal ledger.\n`,
      ifMatch: retryWith,
    }),
  );

  // Edits that match twice, or nowhere, say where to look; a precise one goes through.
  const twice = await t.call(B, 'edit_file', {
    workspace: 'report',
    path: '/draft.md',
    edits: [{ oldText: 'TODO: figures', newText: 'see table 1' }],
  });
  expect(errorCode(twice)).toBe('INVALID_INPUT');
  const nowhere = await t.call(B, 'edit_file', {
    workspace: 'report',
    path: '/draft.md',
    edits: [{ oldText: 'Shipping costs rose sharply', newText: 'Freight rose' }],
  });
  expect(errorCode(nowhere)).toBe('INVALID_INPUT');
  ok(
    await t.call(B, 'edit_file', {
      workspace: 'report',
      path: '/draft.md',
      edits: [{ oldText: 'Tromsø.\nTODO: figures', newText: 'Tromsø (table 2).' }],
    }),
  );

  // A citation from search reads back verbatim at the version it names.
  const found = ok(await t.call(B, 'search', { workspace: 'report', query: 'warehouse Tromsø' }));
  const [hit] = found.items as Array<{
    citation: { path: string; seq: number; lineStart: number; lineEnd: number };
    text: string;
  }>;
  expect(hit?.citation.path).toBe('/draft.md');
  const cited = ok(
    await t.call(B, 'read_text_file', {
      workspace: 'report',
      path: hit?.citation.path,
      version: hit?.citation.seq,
      offset: hit?.citation.lineStart,
      limit: Number(hit?.citation.lineEnd) - Number(hit?.citation.lineStart) + 1,
    }),
  );
  expect(cited.text).toBe(hit?.text);

  // History: A looks at the versions, compares the first with the head, names the state it is
  // about to undo, restores the first; B can still read the draft as it was at that name.
  ok(await t.call(A, 'list_versions', { path: '/draft.md' }));
  ok(await t.call(A, 'diff_versions', { path: '/draft.md', from: first.seq }));
  ok(await t.call(A, 'create_snapshot', { name: 'before-restore' }));
  ok(await t.call(A, 'restore_version', { path: '/draft.md', version: first.seq }));
  const restored = ok(
    await t.call(B, 'read_text_file', { workspace: 'report', path: '/draft.md' }),
  );
  expect(restored.text).toBe(DRAFT);
  const then = ok(
    await t.call(B, 'read_text_file', {
      workspace: 'report',
      path: '/draft.md',
      at: 'before-restore',
    }),
  );
  expect(then.text).toContain('warehouse in Tromsø (table 2).');
  expect(then.seq).toBe(hit?.citation.seq);

  // A large file travels by URL: the model sees links, curl (here fetch) moves the bytes.
  const large = Buffer.alloc(LARGE_BYTES);
  for (let i = 0; i < large.length; i++) large[i] = (i * 7919) % 251;
  const sha256 = createHash('sha256').update(large).digest('hex');
  const upload = ok(
    await t.call(A, 'create_upload_url', { path: '/data/sensor.bin', size: large.length }),
  );
  const put = await fetch(String(upload.url), { method: 'PUT', body: large });
  t.note(`curl -T sensor.bin <upload url> → HTTP ${put.status}`);
  expect(put.status).toBeLessThan(300);
  const info = ok(
    await t.call(B, 'get_file_info', { workspace: 'report', path: '/data/sensor.bin' }),
  );
  expect(info).toMatchObject({ size: LARGE_BYTES, hash: sha256 });
  const media = await t.call(B, 'read_media_file', {
    workspace: 'report',
    path: '/data/sensor.bin',
  });
  expect(media.content[0]).toMatchObject({ type: 'resource_link' });
  expect(JSON.stringify(media).length).toBeLessThan(2000);
  const download = ok(
    await t.call(B, 'create_download_url', { workspace: 'report', path: '/data/sensor.bin' }),
  );
  const got = Buffer.from(await (await fetch(String(download.url))).arrayBuffer());
  t.note(`curl -o sensor.bin <download url> → ${got.length} bytes`);
  expect(createHash('sha256').update(got).digest('hex')).toBe(sha256);

  // A 3,000-file tree (written in batches, as a sync push would) browsed within budgets.
  const remoteA = new RemoteSatchel({ url: served.url, token: keyA });
  const files = Array.from({ length: FOLDERS * FILES_PER_FOLDER }, (_, i) => ({
    path: `/corpus/part-${String(i % FOLDERS).padStart(2, '0')}/doc-${String(i).padStart(4, '0')}.txt`,
    content: `document ${i}\n`,
  }));
  for (let i = 0; i < files.length; i += 1000) {
    await remoteA.writeFiles('report', files.slice(i, i + 1000));
  }
  t.note(`A writes ${files.length} files under /corpus in batches of 1000 (writeFiles over REST)`);
  const tree = await t.call(B, 'directory_tree', { workspace: 'report', path: '/corpus' });
  expect(ok(tree)).toMatchObject({ entries: 1000, truncated: true, total: 3012 });
  expect(textOf(tree).length).toBeLessThan(40_000);
  const seen = new Set<string>();
  let cursor: unknown;
  do {
    const page = ok(
      await t.call(B, 'list_directory', {
        workspace: 'report',
        path: '/corpus/part-07',
        ...(cursor === undefined ? {} : { cursor }),
      }),
    );
    for (const entry of page.entries as Array<{ path: string }>) seen.add(entry.path);
    cursor = page.nextCursor ?? undefined;
    if (typeof cursor === 'string') t.mask(cursor, `<cursor ${seen.size}>`);
  } while (cursor !== undefined);
  expect(seen.size).toBe(FILES_PER_FOLDER);

  // A hands the workspace over to dana, a person, who accepts with her own key.
  const offer = ok(await t.call(A, 'offer_transfer', { to: 'dana' }));
  t.mask(String(offer.code), '<claim code>');
  t.mask(String(offer.id), '<transfer>');
  const dana: Agent = {
    name: 'dana',
    via: 'http',
    client: await served.connectHttp(keyDana, 'dana-laptop'),
  };
  ok(await t.call(dana, 'accept_transfer', { code: offer.code }));
  const members = ok(await t.call(dana, 'list_members', { workspace: 'report' }));
  expect(members.members).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ principal: 'dana', role: 'owner' }),
      expect.objectContaining({ principal: 'agent-a', role: 'editor' }),
    ]),
  );

  await expect(t.toString()).toMatchFileSnapshot('./fixtures/two-agents.transcript.txt');
}, 120_000); // child processes and a 12 MiB transfer: minutes on a loaded 2-core machine
