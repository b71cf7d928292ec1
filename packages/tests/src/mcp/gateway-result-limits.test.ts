import { type Gateway, KernelApi, startGateway } from '@airlock/mcp';
import { createClient, type TaskView } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { hugeResultServer } from './servers.js';

/*
 * The gateway answers a call it ran before the commit (the default), but never with a
 * result the kernel will not record: a result over the kernel's body limit, or nested
 * deeper than a request may be, answers the failure its row commits instead.
 */
describe('MCP gateway: a result the kernel refuses answers as its row records it', () => {
  let kernel: TestKernel;
  let gateway: Gateway | undefined;
  let client: Client | undefined;

  beforeEach(async () => {
    kernel = await startTestKernel();
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'rules',
      approval_rules: [{ tool: 'huge__*', verdict: 'allow' }],
    });
  });
  afterEach(async () => {
    await client?.close();
    await gateway?.close();
    await kernel.close();
  });

  async function callDump(server: Parameters<typeof hugeResultServer>[0]) {
    gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [hugeResultServer(server)],
      pollMs: 50,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.agent);
    client = new Client({ name: 'limits-client', version: '1.0.0' });
    await client.connect(clientSide);
    const answer = (await client.callTool({ name: 'huge__dump', arguments: {} })) as CallToolResult;
    const workspace = createClient({
      url: kernel.url,
      token: kernel.workspace.tokens.member,
    }).workspace(kernel.workspace.id);
    const row = await eventually(async () => {
      const run = (await workspace.runs.list()).find((r) => r.provider === 'gateway');
      const [task] = run ? await workspace.runs.run(run.id).tasks() : [];
      return task && (task.state === 'succeeded' || task.state === 'failed') ? task : null;
    });
    return { answer, row: row as TaskView };
  }

  it('a result over the body limit answers result_too_large, as its row records', async () => {
    const { answer, row } = await callDump({ resultBytes: 1536 * 1024 });
    expect(row).toMatchObject({ state: 'failed', error: { code: 'result_too_large' } });
    expect(answer.isError).toBe(true);
    expect(answer.content).toEqual([
      { type: 'text', text: expect.stringContaining('result_too_large') },
    ]);
    expect(JSON.stringify(answer).length).toBeLessThan(4096);
  }, 30_000);

  it('a result nested deeper than the kernel takes answers invalid_result, as its row records', async () => {
    const { answer, row } = await callDump({ resultBytes: 10, nestDepth: 70 });
    expect(row).toMatchObject({ state: 'failed', error: { code: 'invalid_result' } });
    expect(answer.isError).toBe(true);
    expect(answer.structuredContent).toBeUndefined();
    expect(answer.content).toEqual([
      { type: 'text', text: expect.stringContaining('invalid_result') },
    ]);
  }, 30_000);

  it('a large result under the limit answers in full, as its row records', async () => {
    const { answer, row } = await callDump({ resultBytes: 512 * 1024 });
    expect(answer.isError).toBeFalsy();
    expect(row.state).toBe('succeeded');
    expect(row.result).toMatchObject({ content: answer.content });
  }, 30_000);
});
