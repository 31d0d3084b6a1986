/** Signals between two nodes over a real PostgreSQL: delivery, no echo, and a lost connection. */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresUrlForTests } from '../../test-support/postgres.js';
import { signalsContract, until } from '../signals.contract.js';
import type { Signal } from '../signals.js';
import { PgSignals } from './postgres-signals.js';

const url = postgresUrlForTests();
const open: PgSignals[] = [];

afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

/** Listens on a channel of its own, so parallel test files never hear each other. */
async function node(channel: string): Promise<{ signals: PgSignals; heard: Signal[] }> {
  const signals = await PgSignals.connect(
    { connectionString: url ?? '' },
    { channel, onError: () => undefined },
  );
  open.push(signals);
  const heard: Signal[] = [];
  signals.subscribe((signal) => heard.push(signal));
  return { signals, heard };
}

describe.skipIf(url === null)('PgSignals (LISTEN/NOTIFY)', () => {
  let channels = 0;
  signalsContract(async () => {
    // A channel per case, so cases (and parallel test files) never hear each other.
    const channel = `t_${process.pid}_c${channels++}`;
    return [await node(channel), await node(channel)];
  });

  it('after its connection is killed, a node reconnects, resyncs and hears signals again', async () => {
    const channel = `t_${process.pid}_b`;
    const a = await node(channel);
    const b = await node(channel);
    const admin = new pg.Client({ connectionString: url ?? '' });
    await admin.connect();
    try {
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
        [`LISTEN ${channel}`],
      );
    } finally {
      await admin.end();
    }
    await until(() => b.heard.some((s) => s.kind === 'resync'), 5000);
    await until(() => b.signals.listening && a.signals.listening, 5000);
    a.signals.publish({ kind: 'change', workspace: 'after' });
    await until(() => b.heard.some((s) => s.kind === 'change' && s.workspace === 'after'));
  });

  it('refuses to start when the database cannot be reached', async () => {
    await expect(
      PgSignals.connect({ connectionString: 'postgres://nobody@127.0.0.1:1/none' }),
    ).rejects.toThrow();
  });
});
