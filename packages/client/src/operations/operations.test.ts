/** The operation table is consistent: every binding can be built and read back, and every
 * operation without one has a hand-written client request. */
import { describe, expect, it } from 'vitest';
import { bindRequest, hasBody, namedFields, pathArgs } from '../remote/binding.js';
import { CUSTOM_CALLS } from '../remote/custom-calls.js';
import { OPERATION_NAMES, OPERATIONS } from './index.js';
import type { OperationSpec } from './operation.js';

const specs = OPERATION_NAMES.map((name) => [name, OPERATIONS[name] as OperationSpec] as const);

describe('the operation table', () => {
  it('names each operation after its key', () => {
    for (const [name, spec] of specs) expect(spec.name).toBe(name);
  });

  it('gives every operation without an HTTP binding a hand-written client request, and no other', () => {
    const custom = specs.filter(([, spec]) => 'custom' in spec.http).map(([name]) => name);
    expect(Object.keys(CUSTOM_CALLS).sort()).toEqual([...custom].sort());
  });

  it('binds every path parameter and query parameter to an argument or an option', () => {
    for (const [name, spec] of specs) {
      if ('custom' in spec.http) continue;
      const known = new Set([
        ...spec.args.map(([arg]) => arg),
        ...Object.keys(spec.options?.shape ?? {}),
      ]);
      for (const param of [...pathArgs(spec.http.path), ...Object.keys(spec.http.query ?? {})]) {
        expect(known.has(param), `${name}: ${param}`).toBe(true);
      }
    }
  });

  it('leaves nothing for a body on methods without one', () => {
    for (const [name, spec] of specs) {
      if ('custom' in spec.http || hasBody(spec.http)) continue;
      const inUrl = new Set([...pathArgs(spec.http.path), ...Object.keys(spec.http.query ?? {})]);
      const stranded = [
        ...spec.args.map(([arg]) => arg),
        ...Object.keys(spec.options?.shape ?? {}),
      ].filter((field) => !inUrl.has(field) && field !== 'session' && field !== 'lockToken');
      expect(stranded, name).toEqual([]);
    }
  });

  it('builds a request from a call: path segments encoded, options in the query or body, session as a header', () => {
    const lock = OPERATIONS.renewLock;
    if ('custom' in lock.http) throw new Error('renewLock has a binding');
    const renew = bindRequest(
      lock.http,
      namedFields(lock, ['my ws', 'lock/1', { ttlSeconds: 30, session: 'run 7' }]),
    );
    expect(renew).toEqual({
      path: '/workspaces/my%20ws/locks/lock%2F1/renew',
      query: {},
      headers: { session: 'run 7', lockToken: undefined },
      json: { ttlSeconds: 30 },
    });
    const versions = OPERATIONS.listVersions;
    if ('custom' in versions.http) throw new Error('listVersions has a binding');
    expect(
      bindRequest(versions.http, namedFields(versions, ['w', '/a b/c.md', { limit: 5 }])),
    ).toMatchObject({ path: '/workspaces/w/versions/a%20b/c.md', query: { limit: 5 } });
  });

  it('never lets an option overwrite a positional argument', () => {
    const fields = namedFields(OPERATIONS.listLocks, ['mine', { workspace: 'theirs' } as never]);
    expect(fields.workspace).toBe('mine');
  });
});
