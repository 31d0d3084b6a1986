/**
 * The Satchel contract on the engine with its content in an S3-compatible bucket (the S3
 * stand-in of test-support/s3-server.ts on 127.0.0.1; metadata in a temp data directory).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { openSatchel } from './engine/open.js';
import { runSatchelContract } from './satchel.contract.js';
import { startS3Server, TEST_S3_CREDENTIALS } from './test-support/s3-server.js';

describe('S3 content', () => {
  runSatchelContract('engine with content in S3', async () => {
    const data = await mkdtemp(join(tmpdir(), 'satchel-contract-s3-'));
    const server = await startS3Server(join(data, 's3'));
    const engine = await openSatchel({
      data: join(data, 'data'),
      // A small inline threshold, so that the contract's files really go through the bucket.
      limits: { inlineThreshold: 16 },
      stores: {
        blobs: {
          kind: 's3',
          bucket: server.bucket,
          prefix: 'contract/',
          endpoint: server.endpoint,
          forcePathStyle: true,
          credentials: TEST_S3_CREDENTIALS,
        },
      },
    });
    const adminKey = engine.createdAdminKey;
    if (adminKey === null) throw new Error('a fresh data directory must create the admin key');
    return {
      adminKey,
      connect: async (key) => engine.as(await engine.authenticate(key)),
      close: async () => {
        await engine.close();
        await server.close();
        await rm(data, { recursive: true, force: true });
      },
    };
  });
});
