import { fileURLToPath } from 'node:url';
import { type Gateway, startGateway } from '@airlock/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';

const chatty = fileURLToPath(new URL('./fixtures/chatty-server.mjs', import.meta.url));

/*
 * A server may send progress as fast as it can, and its values may fall back
 * (a count per phase): the gateway passed every one on to its client, falling
 * values included, though MCP asks each to go up. It now passes on only rising
 * values, at most one every 100 ms, and the call still answers.
 */
describe('MCP gateway: a server that floods progress', () => {
  let kernel: TestKernel;
  let gateway: Gateway;
  let client: Client | undefined;

  beforeEach(async () => {
    kernel = await startTestKernel();
    gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [{ name: 'chatty', spec: { command: process.execPath, args: [chatty] } }],
      memberPolicy: { approval_mode: 'bypass', approval_rules: [] },
      pollMs: 50,
    });
  });
  afterEach(async () => {
    await client?.close();
    await gateway?.close();
    await kernel?.close();
  });

  it('its client hears rising values, far fewer than were sent, and the answer', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.member);
    client = new Client({ name: 'flooded-client', version: '1.0.0' });
    await client.connect(clientSide);
    const heard: Progress[] = [];
    const result = (await client.callTool(
      { name: 'chatty__chatter', arguments: { count: 3000 } },
      undefined,
      { onprogress: (progress) => heard.push(progress), timeout: 120_000 },
    )) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'chattered 3000 times' }]);
    expect(heard.length).toBeGreaterThan(0);
    // 3000 were sent; at one every 100 ms, 1000 would take the burst 100 s.
    expect(heard.length).toBeLessThan(1000);
    for (let i = 1; i < heard.length; i += 1) {
      expect(heard[i]?.progress).toBeGreaterThan(heard[i - 1]?.progress ?? 0);
    }
  });
});
