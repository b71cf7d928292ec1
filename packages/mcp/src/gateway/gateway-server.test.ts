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
