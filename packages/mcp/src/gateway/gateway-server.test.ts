import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createGatewayServer } from './gateway-server.js';
import type { GatewaySession } from './gateway-session.js';
import { connectGuarded } from './request-guard.js';

/*
 * The server keeps each delivered tools/call until it is answered (so that a
 * cancellation can find it): a call the SDK refuses before any handler runs
 * (one asking for an MCP task, which the gateway does not offer) must not
 * stay kept, or a long session would pile up one entry per such request.
 */
describe('the gateway server: calls kept until answered', () => {
  it('keeps no call the SDK refused before its handler, nor one it answered', async () => {
    const server = createGatewayServer({
      tools: new Map(),
      session: () => ({}) as GatewaySession,
    });
    const [client, served] = InMemoryTransport.createLinkedPair();
    const heard: JSONRPCMessage[] = [];
    client.onmessage = (message) => heard.push(message);
    await client.start();
    await connectGuarded(server, served);
    const answered = async (id: number) => {
      for (let tries = 0; tries < 500 && !heard.some((m) => 'id' in m && m.id === id); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return heard.find((m) => 'id' in m && m.id === id);
    };
    await client.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    });
    await answered(1);
    await client.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'x', arguments: {}, task: { ttl: 1000 } },
    });
    await client.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'y' } });
    expect(await answered(2)).toHaveProperty('error');
    expect(await answered(3)).toMatchObject({ error: { code: -32602 } });
    expect(server.callsInFlight).toBe(0);
    await server.close();
  });
});

/*
 * Each call is checked once: by the guard in front (connectGuarded), or by the server itself
 * for a transport connected without it; and a result no MCP client takes (content that is no
 * array of blocks, which a row committed elsewhere may hold) is refused, as the SDK's server did.
 */
describe('the gateway server: what it checks of a call and of its result', () => {
  const serve = async (guard: boolean) => {
    const server = createGatewayServer({
      tools: new Map([['t__odd', {} as never]]),
      session: () =>
        ({
          call: async () => ({ content: 'no blocks' }),
          close: async () => {},
        }) as unknown as GatewaySession,
    });
    const [client, served] = InMemoryTransport.createLinkedPair();
    const heard: JSONRPCMessage[] = [];
    client.onmessage = (message) => heard.push(message);
    await client.start();
    if (guard) await connectGuarded(server, served);
    else await server.connect(served);
    const ask = async (id: number, method: string, params: unknown) => {
      await client.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
      for (let tries = 0; tries < 500 && !heard.some((m) => 'id' in m && m.id === id); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return heard.find((m) => 'id' in m && m.id === id);
    };
    await ask(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    return { server, ask };
  };

  it.each([true, false])('refuses a malformed call in one line (guard: %s)', async (guard) => {
    const { server, ask } = await serve(guard);
    expect(await ask(2, 'tools/call', { name: 't__odd', arguments: 5 })).toMatchObject({
      error: { code: -32602, message: 'params.arguments must be an object of the tool input' },
    });
    expect(await ask(3, 'tools/call', { name: 't__odd', task: 5 })).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/^tools\/call: params\.task: /) },
    });
    await server.close();
  });

  it.each([true, false])('refuses a result no MCP client takes (guard: %s)', async (guard) => {
    const { server, ask } = await serve(guard);
    expect(await ask(2, 'tools/call', { name: 't__odd', arguments: {} })).toMatchObject({
      error: {
        code: -32602,
        message: expect.stringMatching(/^MCP error -32602: Invalid tools\/call result: /),
      },
    });
    await server.close();
  });
});
