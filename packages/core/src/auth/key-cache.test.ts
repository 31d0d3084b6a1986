/**
 * The key cache: a revocation is seen at once by the engine that made it and by every engine that
 * hears the access signal; one that hears nothing accepts the revoked key for at most its window.
 * Two engines on one data directory stand in for two nodes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSatchel } from '../engine/open.js';
import { LocalSignals } from '../store/signals.js';
import { tempDir } from '../test-support/temp.js';

const WINDOW_MS = 2000;

async function twoNodes(options: { deaf: boolean }) {
  const data = join(await tempDir(), 'data');
  let now = Date.parse('2026-12-03T12:00:00Z');
  const clock = () => now;
  const a = await openSatchel({ data, clock, keyCacheMs: WINDOW_MS });
  // A node that hears no other process: its own signals only.
  const b = await openSatchel({
    data,
    clock,
    keyCacheMs: WINDOW_MS,
    ...(options.deaf ? { signals: new LocalSignals() } : {}),
  });
  await a.createPrincipal({ name: 'bot' });
  const { key, info } = await a.createKey({ principal: 'bot' });
  return {
    a,
    b,
    key,
    id: info.id,
    advance: (ms: number) => {
      now += ms;
    },
    close: async () => {
      await a.close();
      await b.close();
    },
  };
}

describe('the key cache', () => {
  it('refuses a revoked key at once on the engine that revoked it, whatever it remembered', async () => {
    const nodes = await twoNodes({ deaf: true });
    expect(await nodes.a.authenticate(nodes.key)).toMatchObject({ name: 'bot' });
    await nodes.a.revokeKey(nodes.id);
    await expect(nodes.a.authenticate(nodes.key)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await nodes.close();
  });

  it('refuses it at once on an engine that hears the signal', async () => {
    const nodes = await twoNodes({ deaf: false });
    expect(await nodes.b.authenticate(nodes.key)).toMatchObject({ name: 'bot' });
    await nodes.a.revokeKey(nodes.id);
    // The data directory's signal file reaches the other engine; no clock moves.
    await expect
      .poll(
        () =>
          nodes.b.authenticate(nodes.key).then(
            () => 'accepted',
            (e) => e.code,
          ),
        {
          timeout: 5000,
        },
      )
      .toBe('UNAUTHENTICATED');
    await nodes.close();
  });

  it('on an engine that missed the signal, within its window and not after', async () => {
    const nodes = await twoNodes({ deaf: true });
    expect(await nodes.b.authenticate(nodes.key)).toMatchObject({ name: 'bot' });
    await nodes.a.revokeKey(nodes.id);
    nodes.advance(WINDOW_MS - 1);
    // Remembered: the bound the window gives, not a promise to accept.
    expect(await nodes.b.authenticate(nodes.key)).toMatchObject({ name: 'bot' });
    nodes.advance(1);
    await expect(nodes.b.authenticate(nodes.key)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await nodes.close();
  });

  it('never remembers a wrong secret, and a wrong secret never uses a remembered key', async () => {
    const nodes = await twoNodes({ deaf: true });
    const wrong = `${nodes.key.slice(0, -4)}AAAA`;
    await expect(nodes.b.authenticate(wrong)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await nodes.b.authenticate(nodes.key)).toMatchObject({ name: 'bot' });
    await expect(nodes.b.authenticate(wrong)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await nodes.close();
  });
});
