import { type Gateway, KernelApi } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { startSlowGateway } from './slow-gateway.js';

/*
 * A granted call whose tool runs a while: a client that asked for progress
 * hears the server's own progress through the gateway, as it would from the
 * server itself, so one that resets its timeout on progress keeps waiting.
 */
describe('MCP gateway: the progress of a running tool', () => {
  let kernel: TestKernel;
  let gateway: Gateway;
  let client: Client | undefined;

  beforeEach(async () => {
    kernel = await startTestKernel();
    gateway = await startSlowGateway(kernel);
  });
  afterEach(async () => {
    await client?.close();
    await gateway?.close();
    await kernel?.close();
  });

  it("a granted call's client hears the server's progress while the tool runs", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // A member's calls are granted (bypass): the tool runs at once on the gateway's bridge.
    await gateway.connect(serverSide, kernel.workspace.tokens.member);
    client = new Client({ name: 'progress-client', version: '1.0.0' });
    await client.connect(clientSide);
    const heard: Progress[] = [];
    const result = (await client.callTool(
      { name: 'slow__wait', arguments: { ms: 1500 } },
      undefined,
      { onprogress: (progress) => heard.push(progress), timeout: 60_000 },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(heard.length).toBeGreaterThan(0);
    expect(heard[0]?.message).toMatch(/^waited \d+ ms$/);
    // Each value goes up, as MCP asks of progress.
    for (let i = 1; i < heard.length; i += 1) {
      expect(heard[i]?.progress).toBeGreaterThan(heard[i - 1]?.progress ?? 0);
    }
  });

  it("a parked call's progress goes on rising through the server's own once approved", async () => {
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'ask',
      approval_rules: [],
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.agent);
    client = new Client({ name: 'progress-client', version: '1.0.0' });
    await client.connect(clientSide);
    const heard: Progress[] = [];
    const calling = client.callTool({ name: 'slow__wait', arguments: { ms: 800 } }, undefined, {
      onprogress: (progress) => heard.push(progress),
      timeout: 60_000,
    });
    // Heard while parked, then approved: the server's progress (from 0) follows.
    await eventually(() => heard.length > 0);
    const decision = await eventually(async () => {
      const members = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
      const found = (await members.workspace(kernel.workspace.id).decisions.list()).find((d) =>
        d.isApproval(),
      );
      return found?.isApproval() ? found : null;
    });
    await decision.approve();
    expect(((await calling) as CallToolResult).isError).toBeFalsy();
    expect(heard.some((progress) => progress.message?.startsWith('waited'))).toBe(true);
    for (let i = 1; i < heard.length; i += 1) {
      expect(heard[i]?.progress).toBeGreaterThan(heard[i - 1]?.progress ?? 0);
    }
  });
});
