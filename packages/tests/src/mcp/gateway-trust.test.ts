import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Gateway, type HttpGateway, KernelApi, startGateway } from '@airlock/mcp';
import { createAgentApplication, createCredential } from '@airlock/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  startTestKernel,
  type TestKernel,
  type TestWorkspace,
} from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';

const CLI = fileURLToPath(new URL('../../../server/dist/cli.js', import.meta.url));

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'x', version: '1' },
  },
};

/** Sends raw HTTP (any Host, any announced length) and resolves with what came back until close. */
function rawRequest(url: string, head: string, body: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectSocket(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, 5000);
    socket.on('data', (chunk) => {
      received += String(chunk);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('connect', () => socket.write(`${head}\r\n\r\n${body}`));
    socket.on('error', reject);
  });
}

/*
 * The gateway's doors, tried from the outside with the official MCP SDK
 * client over real HTTP on loopback: a credential of another workspace or
 * application, a foreign Origin or Host, a bogus token with a large body, and
 * a session whose client went quiet.
 */
describe('MCP gateway: who may open a session', () => {
  let kernel: TestKernel;
  let other: TestWorkspace;
  let otherAppAgent: string;
  let gateway: Gateway;
  let front: HttpGateway;
  let dir: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    kernel = await startTestKernel();
    other = await kernel.addWorkspace('other');
    const app = await createAgentApplication(kernel.airlock.store, {
      workspaceId: kernel.workspace.id,
      name: 'second-app',
    });
    otherAppAgent = (
      await createCredential(kernel.airlock.store, {
        workspaceId: kernel.workspace.id,
        kind: 'agent',
        agentApplicationId: app.id,
      })
    ).token;
    dir = workFolder();
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'rules',
      approval_rules: [{ tool: 'fs__list_*', verdict: 'allow' }],
    });
    gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      pollMs: 50,
    });
    front = await gateway.listenHttp();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await gateway?.close();
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function sdkConnect(url: string, token: string): Promise<Client> {
    const client = new Client({ name: 'trust-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  const counts = async () => ({
    runs: (await kernel.airlock.store.db.selectFrom('runs').select('id').execute()).length,
    conversations: (
      await kernel.airlock.store.db.selectFrom('conversations').select('id').execute()
    ).length,
  });

  it('refuses initialize from an agent of another workspace or application, creating nothing', async () => {
    const before = await counts();
    const sessions = front.sessions;
    for (const token of [other.tokens.agent, other.tokens.member, otherAppAgent]) {
      await expect(sdkConnect(front.url, token)).rejects.toThrow(
        /belongs to another workspace|of another application/,
      );
      const answer = await fetch(front.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(INITIALIZE),
      });
      expect(answer.status).toBe(403);
    }
    expect(front.sessions).toBe(sessions);
    expect(await counts()).toEqual(before);
  });

  it('refuses the same credentials on stdio (connect) and in the CLI with --token', async () => {
    const before = await counts();
    for (const token of [other.tokens.agent, otherAppAgent]) {
      const [, serverSide] = InMemoryTransport.createLinkedPair();
      await expect(gateway.connect(serverSide, token)).rejects.toMatchObject({
        code: 'forbidden',
      });
    }
    const { spec } = filesystemServer(dir);
    const child = spawn(
      process.execPath,
      [CLI, 'gateway', 'mcp', '--stdio', '--name', 'fs', '--', spec.command, ...spec.args],
      {
        env: {
          ...process.env,
          AIRLOCK_URL: kernel.url,
          AIRLOCK_WORKSPACE: kernel.workspace.id,
          AIRLOCK_EXECUTOR_TOKEN: kernel.workspace.tokens.executor,
          AIRLOCK_TOKEN: other.tokens.agent,
        },
        stdio: ['pipe', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('forbidden');
    expect(await counts()).toEqual(before);
  }, 30_000);

  it("serves its own application's agent and the workspace's members", async () => {
    const agent = await sdkConnect(front.url, kernel.workspace.tokens.agent);
    const listed = (await agent.callTool({
      name: 'fs__list_allowed_directories',
      arguments: {},
    })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    await sdkConnect(front.url, kernel.workspace.tokens.member);
  });

  it('refuses a foreign Origin unless allowed, and a foreign Host on loopback', async () => {
    const post = (url: string, origin: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${kernel.workspace.tokens.agent}`,
          origin,
        },
        body: JSON.stringify(INITIALIZE),
      });
    const sessions = front.sessions;
    const evil = await post(front.url, 'http://evil.example');
    expect(evil.status).toBe(403);
    expect((await evil.json()).error.message).toContain('--allow-origin');
    expect(front.sessions).toBe(sessions);
    const allowing = await gateway.listenHttp({ allowOrigins: ['http://app.example'] });
    expect((await post(allowing.url, 'http://app.example')).status).toBe(200);
    expect((await post(allowing.url, 'http://evil.example')).status).toBe(403);
    const { port } = new URL(front.url);
    const rebound = await rawRequest(
      front.url,
      [
        'POST /mcp HTTP/1.1',
        `host: evil.example:${port}`,
        `authorization: Bearer ${kernel.workspace.tokens.agent}`,
        'content-type: application/json',
        'accept: application/json, text/event-stream',
        `content-length: ${JSON.stringify(INITIALIZE).length}`,
        'connection: close',
      ].join('\r\n'),
      JSON.stringify(INITIALIZE),
    );
    expect(rebound).toMatch(/^HTTP\/1\.1 403/);
    expect(front.sessions).toBe(sessions);
    expect(front.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });

  it('answers 400 to a request target that is not a URL, and keeps serving', async () => {
    const { port } = new URL(front.url);
    for (const target of ['//[', 'http://a:99999/mcp', '//proxy/mcp']) {
      const answer = await rawRequest(
        front.url,
        [`POST ${target} HTTP/1.1`, `host: 127.0.0.1:${port}`, 'connection: close'].join('\r\n'),
        '',
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
      expect(answer).toContain('not a valid URL path');
    }
    const client = await sdkConnect(front.url, kernel.workspace.tokens.agent);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('answers 401 to a bogus token before reading its 4 MiB body', async () => {
    const size = 4 * 1024 * 1024;
    const answer = await rawRequest(
      front.url,
      [
        'POST /mcp HTTP/1.1',
        'host: 127.0.0.1',
        'authorization: Bearer alk_agent_bogus',
        'content-type: application/json',
        `content-length: ${size}`,
      ].join('\r\n'),
      'x'.repeat(1024),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
  });

  it('ends an idle HTTP session and its gateway run', async () => {
    const gatewayRuns = async () =>
      kernel.airlock.store.db
        .selectFrom('runs')
        .select(['id', 'state'])
        .where('provider', 'like', '{"kind":"gateway"%')
        .execute();
    const earlier = new Set((await gatewayRuns()).map((run) => run.id));
    // Idle long enough that a loaded machine's pause between the client's initialize and its next
    // message (over 400 ms once, three test files at a time) does not end the session early.
    const quick = await gateway.listenHttp({ sessionIdleMs: 2_500 });
    const client = await sdkConnect(quick.url, kernel.workspace.tokens.agent);
    await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} });
    expect(quick.sessions).toBe(1);
    const [mine] = (await gatewayRuns()).filter((run) => !earlier.has(run.id));
    expect(mine?.state).toBe('running');
    await eventually(() => quick.sessions === 0, {
      what: 'the idle session to end',
      timeoutMs: 20_000,
    });
    await eventually(
      async () => (await gatewayRuns()).find((run) => run.id === mine?.id)?.state === 'completed',
      { what: 'the gateway run to end' },
    );
    await expect(client.listTools()).rejects.toThrow(/404|session/i);
  });
});
