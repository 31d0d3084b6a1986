/** Files as resources: template, listing, reads, and update notifications driven by the change feed. */
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connect, openEngine } from './test-support/client.js';

describe('resources', () => {
  it('exposes a template, lists files page by page and reads text and binary', async () => {
    const engine = await openEngine();
    await engine.writeFiles(
      'ws',
      Array.from({ length: 120 }, (_, i) => ({
        path: `/docs/n${String(i).padStart(3, '0')}.md`,
        content: `# ${i}\n`,
      })),
    );
    await engine.writeFile('ws', '/bin/x.bin', new Uint8Array([0, 255]));
    await engine.writeFile('ws', '/odd name.txt', 'spaced');
    const client = await connect(engine);

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0]?.uriTemplate).toBe('satchel://{workspace}/{+path}');

    const first = await client.listResources();
    // A page looks at 100 entries; directories among them are not resources.
    expect(first.resources.length).toBeLessThanOrEqual(100);
    expect(first.resources[0]).toMatchObject({ uri: 'satchel://ws/bin/x.bin', name: '/bin/x.bin' });
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.resources.map((r) => r.uri)).toContain('satchel://ws/odd%20name.txt');
    expect(second.nextCursor).toBeUndefined();
    expect(first.resources.length + second.resources.length).toBe(122);

    const text = await client.readResource({ uri: 'satchel://ws/odd%20name.txt' });
    expect(text.contents[0]).toMatchObject({ text: 'spaced' });
    const binary = await client.readResource({ uri: 'satchel://ws/bin/x.bin' });
    expect(binary.contents[0]).toMatchObject({ blob: 'AP8=' });
    await expect(client.readResource({ uri: 'satchel://ws/%2e%2e/etc' })).rejects.toThrow(
      /INVALID_PATH/,
    );
    await expect(client.readResource({ uri: 'satchel://ws/missing.md' })).rejects.toThrow(
      /NOT_FOUND/,
    );
  });

  it('notifies a subscriber when anyone changes the file, and stops after unsubscribe', async () => {
    const engine = await openEngine();
    await engine.writeFile('ws', '/watched.md', 'v1');
    const client = await connect(engine);
    const updates: string[] = [];
    let notify: () => void = () => undefined;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      notify();
    });
    const next = () =>
      new Promise<void>((resolve) => {
        notify = resolve;
      });

    await client.subscribeResource({ uri: 'satchel://ws/watched.md' });
    let arrived = next();
    await engine.writeFile('ws', '/other.md', 'unrelated');
    // Another principal, straight through the engine: not through this MCP server.
    await engine.writeFile('ws', '/watched.md', 'v2');
    await arrived;
    expect(updates).toEqual(['satchel://ws/watched.md']);

    arrived = next();
    await engine.remove('ws', '/watched.md');
    await arrived;
    expect(updates).toHaveLength(2);

    await client.unsubscribeResource({ uri: 'satchel://ws/watched.md' });
    await expect(client.subscribeResource({ uri: 'satchel://nope/x.md' })).rejects.toThrow(
      /NOT_FOUND/,
    );
  });
});
