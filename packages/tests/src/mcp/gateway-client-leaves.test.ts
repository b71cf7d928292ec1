import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { useSdkGateway } from './sdk-gateway-fixture.js';

/*
 * A client that leaves a parked call: a cancellation cancels the row, a
 * disconnect leaves it to its clock, so a person can still decide it.
 */
describe('MCP gateway: a client that leaves a parked call', () => {
  const { g, connect, workspace, parked } = useSdkGateway();

  it('a cancellation from the client cancels the parked row', async () => {
    const client = await connect(g.kernel.workspace.tokens.agent);
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'fs__write_file', arguments: { path: 'src/c.txt', content: 'x' } },
      undefined,
      { signal: controller.signal },
    );
    const decision = await parked('fs__write_file');
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    const run = workspace().runs.run(decision.task.run_id);
    await eventually(async () => (await run.task(decision.task.key)).state === 'canceled');
    expect(existsSync(join(g.dir, 'src/c.txt'))).toBe(false);
  });

  it('a disconnect leaves the parked row to its clock (a person can still decide)', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await g.gateway.connect(serverSide, g.kernel.workspace.tokens.agent);
    const client = new Client({ name: 'gone', version: '1' });
    await client.connect(clientSide);
    const pending = client.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/d.txt', content: 'later' },
    });
    const decision = await parked('fs__write_file');
    await client.close();
    await expect(pending).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const run = workspace().runs.run(decision.task.run_id);
    expect((await run.task(decision.task.key)).state).toBe('needs_approval');
    await decision.approve();
    await eventually(() => existsSync(join(g.dir, 'src/d.txt')));
  });
});
