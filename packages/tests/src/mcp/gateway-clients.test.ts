import { type Gateway, startGateway } from '@airlock/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';

/*
 * The gateway keeps a client's MCP server (and through it its session and
 * transport) only while the client is connected: a gateway embedded in a
 * long-lived process that connects one client after another must not grow.
 */
describe('the clients a gateway keeps', () => {
  let kernel: TestKernel;
  let workspaceId: string;
  let tokens: { agent: string; executor: string; member: string };
  let gateway: Gateway | undefined;

  beforeAll(async () => {
    kernel = await startTestKernel();
    workspaceId = kernel.workspace.id;
    tokens = kernel.workspace.tokens;
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });
  afterAll(async () => {
    await kernel?.close();
  });

  const start = async () => {
    gateway = await startGateway({
      url: kernel.url,
      workspaceId,
      executorToken: tokens.executor,
      servers: [],
    });
    return gateway;
  };

  /** A client of the SDK connected to the gateway in memory, as an embedding process would. */
  const connectInMemory = async (running: Gateway, token: string) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'embedded-client', version: '1.0.0' });
    await Promise.all([running.connect(serverSide, token), client.connect(clientSide)]);
    await client.listTools();
    return client;
  };

  it('releases each client connected through connect once its connection closes', async () => {
    const running = await start();
    const clients = [];
    for (const token of [tokens.agent, tokens.member, tokens.agent, tokens.member]) {
      clients.push(await connectInMemory(running, token));
    }
    expect(running.connectedClients()).toBe(4);
    await clients[0]?.close();
    await clients[2]?.close();
    expect(running.connectedClients()).toBe(2);
    await Promise.all(clients.map((client) => client.close()));
    expect(running.connectedClients()).toBe(0);
  });

  it('still closes on close() every client that is still connected', async () => {
    const running = await start();
    const gone = await connectInMemory(running, tokens.agent);
    const staying = [
      await connectInMemory(running, tokens.agent),
      await connectInMemory(running, tokens.member),
    ];
    await gone.close();
    const closed: string[] = [];
    staying.forEach((client, i) => {
      client.onclose = () => closed.push(`client ${i}`);
    });
    expect(running.connectedClients()).toBe(2);
    await running.close();
    gateway = undefined;
    expect(closed.sort()).toEqual(['client 0', 'client 1']);
    expect(running.connectedClients()).toBe(0);
  });

  it('counts an HTTP session until its client ends it', async () => {
    const running = await start();
    const front = await running.listenHttp();
    const transports = [tokens.agent, tokens.member, tokens.agent].map(
      (token) =>
        new StreamableHTTPClientTransport(new URL(front.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
    );
    const clients = [];
    for (const transport of transports) {
      const client = new Client({ name: 'http-client', version: '1.0.0' });
      await client.connect(transport);
      await client.listTools();
      clients.push(client);
    }
    const embedded = await connectInMemory(running, tokens.member);
    expect(front.sessions).toBe(3);
    expect(running.connectedClients()).toBe(4);
    for (const transport of transports) await transport.terminateSession();
    await Promise.all(clients.map((client) => client.close()));
    expect(front.sessions).toBe(0);
    expect(running.connectedClients()).toBe(1);
    await embedded.close();
    expect(running.connectedClients()).toBe(0);
  });
});
