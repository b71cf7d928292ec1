import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Gateway, KernelApi, startGateway } from '@airlock/mcp';
import { createClient, type TaskView } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';

/*
 * When the gateway answers a call its own bridge ran: by default as soon as
 * the tool returned, its commit going out behind the answer (and before the
 * session's next call); with awaitCommits, only once the kernel committed it.
 * Either way the row ends with exactly what the client was answered.
 */
describe('MCP gateway: the answer and the commit of a call it ran', () => {
  let kernel: TestKernel;
  let gateway: Gateway | undefined;
  let client: Client | undefined;
  let dir: string;

  beforeEach(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
    writeFileSync(join(dir, 'a.txt'), 'hello');
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'rules',
      approval_rules: [{ tool: 'fs__read_*', verdict: 'allow' }],
    });
  });
  afterEach(async () => {
    await client?.close();
    await gateway?.close();
    await kernel.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function connect(awaitCommits: boolean): Promise<Client> {
    gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      awaitCommits,
      pollMs: 50,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.agent);
    client = new Client({ name: 'commits-client', version: '1.0.0' });
    await client.connect(clientSide);
    return client;
  }

  const rows = async (): Promise<TaskView[]> => {
    const workspace = createClient({
      url: kernel.url,
      token: kernel.workspace.tokens.member,
    }).workspace(kernel.workspace.id);
    const run = (await workspace.runs.list()).find((r) => r.provider === 'gateway');
    return run ? workspace.runs.run(run.id).tasks() : [];
  };
  const read = (c: Client, path: string) =>
    c.callTool({ name: 'fs__read_text_file', arguments: { path } }) as Promise<CallToolResult>;

  it('answers as the tool returned, commits what it answered, and keeps the calls in order', async () => {
    const c = await connect(false);
    const first = await read(c, 'a.txt');
    const second = await read(c, 'missing.txt');
    expect(first.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(second.isError).toBe(true);
    const settled = await eventually(async () => {
      const found = await rows();
      return found.length === 2 && found.every((row) => row.state !== 'claimed') ? found : null;
    });
    expect(settled.map(({ key, round, state }) => ({ key, round, state }))).toEqual([
      { key: 't1', round: 1, state: 'succeeded' },
      // The second call was planted after the first one's commit: a round of its own.
      { key: 't2', round: 2, state: 'failed' },
    ]);
    expect(settled[0]?.result).toMatchObject({ content: first.content });
    expect(settled[1]?.error?.code).toBe('tool_error');
    expect(second.content).toEqual([{ type: 'text', text: settled[1]?.error?.detail }]);
  });

  it('with awaitCommits, answers only once the row is committed', async () => {
    const c = await connect(true);
    const answer = await read(c, 'a.txt');
    // Read at once, no waiting: the commit came before the answer.
    const [row] = await rows();
    expect(row).toMatchObject({ key: 't1', state: 'succeeded' });
    expect(row?.result).toMatchObject({ content: answer.content });
  });
});
