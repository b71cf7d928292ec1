import { type Gateway, KernelApi, startGateway } from '@airlock/mcp';
import { createClient, type TaskView } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { hugeResultServer } from './servers.js';

/*
 * The gateway decides whether to answer a call before its commit by the kernel's body
 * limit: the limit this kernel was started with, which it says on every answer, not the
 * 1 MiB default. A kernel started with 64 KiB refuses a 200 KiB commit; the gateway must
 * then answer what the row records (result_too_large), not the result it never recorded.
 */
describe('MCP gateway: the body limit is the kernel it talks to', () => {
  const limit = 64 * 1024;
  let kernel: TestKernel;
  let gateway: Gateway | undefined;
  let client: Client | undefined;

  beforeEach(async () => {
    kernel = await startTestKernel({ bodyLimit: limit });
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

  async function callDump(resultBytes: number, bodyLimit?: number) {
    gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [hugeResultServer({ resultBytes })],
      pollMs: 50,
      ...(bodyLimit === undefined ? {} : { bodyLimit }),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.agent);
    client = new Client({ name: 'limit-client', version: '1.0.0' });
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

  it('the kernel says its limit on every answer', async () => {
    const health = await fetch(`${kernel.url}/healthz`);
    expect(health.headers.get('airlock-body-limit')).toBe(String(limit));
  });

  it('a result over the kernel’s smaller limit answers result_too_large, as its row records', async () => {
    const { answer, row } = await callDump(200 * 1024);
    expect(row).toMatchObject({ state: 'failed', error: { code: 'result_too_large' } });
    expect(answer.isError).toBe(true);
    expect(answer.content).toEqual([
      { type: 'text', text: expect.stringContaining('result_too_large') },
    ]);
  }, 30_000);

  it('a bodyLimit option larger than the kernel’s does not widen it', async () => {
    const { answer, row } = await callDump(200 * 1024, 4 * 1024 * 1024);
    expect(row).toMatchObject({ state: 'failed', error: { code: 'result_too_large' } });
    expect(answer.isError).toBe(true);
  }, 30_000);

  it('a result under the kernel’s limit answers in full, as its row records', async () => {
    const { answer, row } = await callDump(32 * 1024);
    expect(answer.isError).toBeFalsy();
    expect(row.state).toBe('succeeded');
    expect(row.result).toMatchObject({ content: answer.content });
  }, 30_000);
});
