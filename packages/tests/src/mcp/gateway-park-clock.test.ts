import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Gateway, KernelApi, startGateway } from '@airlock/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';

describe('MCP gateway: a park nobody decides', () => {
  let kernel: TestKernel;
  let gateway: Gateway;
  let dir: string;

  beforeAll(async () => {
    kernel = await startTestKernel({ parkTtlMs: 600 });
    dir = workFolder();
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'ask',
    });
    gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      pollMs: 50,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers isError with the expiry notice once the park clock fires', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.agent);
    const client = new Client({ name: 'patient', version: '1' });
    await client.connect(clientSide);
    const result = (await client.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/late.txt', content: 'x' },
    })) as CallToolResult;
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Nobody approved this tool call before it expired.' }],
      isError: true,
    });
    expect(existsSync(join(dir, 'src/late.txt'))).toBe(false);
    await client.close();
  });
});
