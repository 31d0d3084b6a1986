/**
 * One S3 transfer in isolation, so its peak RSS is its own (run by s3.ts as plain JavaScript on
 * `../dist`): `node bench/s3-child.mjs MODE <source file> <endpoint> <bucket> <dir>`.
 *
 * plain: `@aws-sdk/lib-storage` Upload of createReadStream(source) to the bucket (the baseline).
 * s3:    S3BlobStore.put(createReadStream(source)), then get() of all of it (read and verified).
 * dir:   FsBlobStore (in <dir>) put and get of the same file, for comparison.
 *
 * Prints one JSON line: { mode, bytes, putSeconds, getSeconds, maxRssKiB }.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { FsBlobStore, S3BlobStore } from '../dist/index.js';

const elapsed = (start) => Number(process.hrtime.bigint() - start) / 1e9;
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

async function drain(iterable) {
  let bytes = 0;
  for await (const piece of iterable) bytes += piece.byteLength;
  return bytes;
}

async function main() {
  const [mode, source, endpoint, bucket, dir] = process.argv.slice(2);
  const size = (await stat(source)).size;
  let putSeconds;
  let getSeconds = 0;
  if (mode === 'plain') {
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const start = process.hrtime.bigint();
    await new Upload({
      client,
      params: { Bucket: bucket, Key: `plain/${Date.now()}`, Body: createReadStream(source) },
      partSize: 8 * 1024 * 1024,
      queueSize: 4,
    }).done();
    putSeconds = elapsed(start);
    client.destroy();
  } else {
    const store =
      mode === 's3'
        ? new S3BlobStore({
            bucket,
            prefix: `s3-${Date.now()}`,
            endpoint,
            forcePathStyle: true,
            credentials,
          })
        : await FsBlobStore.open(dir);
    let start = process.hrtime.bigint();
    const ref = await store.put(createReadStream(source));
    putSeconds = elapsed(start);
    start = process.hrtime.bigint();
    const read = await drain(store.get(ref));
    getSeconds = elapsed(start);
    if (read !== size || ref.size !== size)
      throw new Error(`${mode}: ${read} bytes read of ${size}`);
    store.close?.();
  }
  const maxRssKiB = process.resourceUsage().maxRSS;
  process.stdout.write(
    `${JSON.stringify({ mode, bytes: size, putSeconds, getSeconds, maxRssKiB })}\n`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
