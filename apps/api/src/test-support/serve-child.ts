/**
 * A Satchel server in a process of its own, for tests and benchmarks that kill it mid-request
 * or keep it off the client's event loop: `tsx serve-child.ts <data directory>` opens the engine
 * there, serves on a free port of 127.0.0.1 and prints one JSON line `{url, key}` (the admin
 * key; on a data directory that has one, read from `<data>/admin.key`). Runs until killed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openSatchel } from '@satchel/core';
import { serve } from '../serve.js';

const data = process.argv[2];
if (data === undefined) throw new Error('usage: serve-child.ts <data directory>');
const engine = await openSatchel({ data });
const key = engine.createdAdminKey ?? (await readFile(join(data, 'admin.key'), 'utf8')).trim();
const server = await serve(engine, { port: 0, api: { logFault: () => undefined } });
process.stdout.write(`${JSON.stringify({ url: server.url, key })}\n`);
