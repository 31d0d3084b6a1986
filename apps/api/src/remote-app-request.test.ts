/**
 * The Satchel contract for RemoteSatchel over `app.request`: the client, the routes and the
 * engine in one process with no socket, so a failure here is the client's or the routes', not
 * the network's (remote.test.ts runs the same contract over a live server).
 */
import { RemoteSatchel } from '@satchel/core';
import { runSatchelContract } from '@satchel/core/testing';
import { createApp } from './app.js';
import { openTempEngine } from './test-support/temp-engine.js';

/** Never resolved: every request goes to `app.request`, which only reads the URL's path. */
const URL_OF_APP = 'http://satchel.invalid';

runSatchelContract('RemoteSatchel over app.request', async () => {
  const opened = await openTempEngine();
  // Quiet: the faults a test provokes on purpose are not worth a stderr line.
  const app = createApp(opened.engine, { logFault: () => undefined });
  return {
    adminKey: opened.adminKey,
    connect: async (key) =>
      new RemoteSatchel({
        url: URL_OF_APP,
        token: key,
        fetch: async (input, init) => app.request(input, init),
      }),
    close: () => opened.close(),
  };
});
