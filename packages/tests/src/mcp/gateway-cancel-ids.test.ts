import { type Gateway, KernelApi } from '@airlock/mcp';
import { createClient, type TaskView } from '@airlock/sdk';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { startSlowGateway } from './slow-gateway.js';

/*
 * JSON-RPC takes 0 and '' as request ids like any other, but the MCP SDK's
 * server acts on no cancellation of a falsy id: a parked call of id 0 that
 * its client cancelled stayed parked, and ran once a person approved it.
 * The gateway stops such a call itself, as it does every other.
 */
describe('MCP gateway: a client cancels a call whose id is 0 or empty', () => {
  let kernel: TestKernel;
  let gateway: Gateway;
  let clientSide: InMemoryTransport | undefined;

  beforeEach(async () => {
    kernel = await startTestKernel();
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'ask',
      approval_rules: [],
    });
    gateway = await startSlowGateway(kernel);
  });
  afterEach(async () => {
    await clientSide?.close();
    await gateway?.close();
    await kernel?.close();
  });

  /** A raw client (any id goes) whose session is initialized; what it receives lands in `heard`. */
  async function rawClient(heard: JSONRPCMessage[]): Promise<InMemoryTransport> {
    const [client, server] = InMemoryTransport.createLinkedPair();
    client.onmessage = (message) => heard.push(message);
    await client.start();
    await gateway.connect(server, kernel.workspace.tokens.agent);
    await client.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    clientSide = client;
    return client;
  }

  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );
  const call = (id: string | number) =>
    ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'slow__wait', arguments: { ms: 1 } },
    }) as const;
  const cancel = (id: string | number) =>
    ({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'the user changed their mind' },
    }) as const;
  /** The session's one row, once the kernel canceled it. */
  const canceledRow = () =>
    eventually(
      async (): Promise<TaskView | null> => {
        const [run] = await workspace().runs.list();
        const [row] = run ? await workspace().runs.run(run.id).tasks() : [];
        return row?.state === 'canceled' ? row : null;
      },
      { what: 'the canceled row' },
    );

  it('a parked call of id 0 is canceled with the client reason, and never runs', async () => {
    const heard: JSONRPCMessage[] = [];
    const client = await rawClient(heard);
    await client.send(call(0));
    const parked = await eventually(async () => {
      const found = (await workspace().decisions.list()).find((d) => d.isApproval());
      return found?.isApproval() ? found : null;
    });
    await client.send(cancel(0));
    const row = await canceledRow();
    expect(row).toMatchObject({ key: parked.task_key, state: 'canceled' });
    expect(row.error?.detail).toBe('the MCP client canceled the call: the user changed their mind');
    // Too late to approve: the row is canceled, so the tool does not run.
    await expect(parked.approve()).rejects.toMatchObject({ code: 'task_not_waiting' });
    // The SDK still answers a request of a falsy id: the answer says it did not run.
    const answer = await eventually(() => heard.find((m) => 'id' in m && m.id === 0));
    expect(answer).toMatchObject({ result: { isError: true } });
  });

  it("a call of id '' cancelled in the same breath as it was sent is canceled too", async () => {
    const client = await rawClient([]);
    // Delivered one right after the other, before the call's handler starts.
    void client.send(call(''));
    void client.send(cancel(''));
    const row = await canceledRow();
    expect(row.error?.detail).toBe('the MCP client canceled the call: the user changed their mind');
  });
});
