// A process of lock-protected incrementers (the cluster lock test runs two and freezes them in
// turn with SIGSTOP). Argument: JSON {nodes, key, workers, increments, ttlSeconds, path}.
// Prints `held` on a line each time one of its workers holds the lock (the test freezes the
// process then), and one JSON line at the end: {acknowledged, stale, errors}.
const { nodes, key, workers, increments, ttlSeconds, path } = JSON.parse(process.argv[2]);
let acknowledged = 0;
let stale = 0;
const errors = [];

function call(base, route, init = {}) {
  return fetch(`${base}${route}`, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, ...init.headers },
  });
}

async function worker(w) {
  let done = 0;
  let turn = w;
  while (done < increments) {
    const node = nodes[turn++ % nodes.length];
    const other = nodes[turn % nodes.length];
    const locked = await call(node, '/v1/workspaces/ws/locks', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ path, ttlSeconds, waitSeconds: 60 }),
    });
    if (locked.status !== 201) {
      errors.push(`lock ${locked.status} ${await locked.text()}`);
      continue;
    }
    const lock = await locked.json();
    process.stdout.write('held\n');
    const read = await call(other, `/v1/workspaces/ws/files${path}`);
    const value = Number(await read.text());
    const write = await call(node, `/v1/workspaces/ws/files${path}`, {
      method: 'PUT',
      headers: { 'Satchel-Lock-Token': String(lock.token) },
      body: String(value + 1),
    });
    const answer = await write.text();
    if (write.status === 200) {
      acknowledged += 1;
      done += 1;
    } else if (write.status === 423 && answer.includes('stale')) {
      stale += 1;
    } else {
      errors.push(`write ${write.status} ${answer}`);
    }
    // 204, or 404 once the lease ran out while this process was frozen.
    await (await call(other, `/v1/workspaces/ws/locks/${lock.id}`, { method: 'DELETE' })).text();
  }
}

await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
process.stdout.write(`${JSON.stringify({ acknowledged, stale, errors: errors.slice(0, 10) })}\n`);
