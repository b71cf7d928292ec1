import type { Gateway } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { startSlowGateway } from './slow-gateway.js';

/*
 * A session whose gateway run someone stopped goes on in a new run: every
 * call that finds the run stopped is planted in the one new run, however
 * many were on their way at once.
 */
describe('MCP gateway: calls after the session run was stopped', () => {
  let kernel: TestKernel;
  let gateway: Gateway;

  beforeAll(async () => {
    kernel = await startTestKernel();
    gateway = await startSlowGateway(kernel);
  });
  afterAll(async () => {
    await gateway?.close();
    await kernel?.close();
  });

  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );
  const wait = (client: Client) =>
    client.callTool({ name: 'slow__wait', arguments: { ms: 0 } }) as Promise<CallToolResult>;

  it('two calls in flight both go on in one new run', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.member);
    const client = new Client({ name: 'stopped-run-client', version: '1.0.0' });
    await client.connect(clientSide);
    expect((await wait(client)).isError).toBeFalsy();
    const [first] = await workspace().runs.list();
    await workspace()
      .runs.run(first?.id ?? '')
      .stop();

    const answers = await Promise.all([wait(client), wait(client)]);
    expect(answers.map((answer) => answer.isError ?? false)).toEqual([false, false]);
    const runs = (await workspace().runs.list()).filter((run) => run.provider === 'gateway');
    expect(runs).toHaveLength(2);
    const next = runs.find((run) => run.id !== first?.id);
    const rows = await workspace()
      .runs.run(next?.id ?? '')
      .tasks();
    expect(rows.map((row) => row.state)).toEqual(['succeeded', 'succeeded']);
    await client.close();
  });
});
