import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { type Gateway, KernelApi } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { useHttpGateway } from './http-gateway-fixture.js';
import { startSlowGateway } from './slow-gateway.js';

/*
 * MCP forbids a client to reuse a request id within a session. One that sends a
 * second tools/call under the id of a call still parked planted a second row;
 * the second took the first's place in the SDK's and the gateway's books, so a
 * cancellation of that id canceled the second row alone, and the first stayed
 * parked for anyone to approve and run although its client had cancelled it.
 */
describe('MCP gateway: a client reuses the id of a call still in flight', () => {
  let kernel: TestKernel;
  let gateway: Gateway;
  let clientSide: InMemoryTransport | undefined;

  beforeEach(async () => {
    kernel = await startTestKernel();
    await new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent }).putProfile({
      approval_mode: 'ask',
      approval_rules: [],
    });
    gateway = await startSlowGateway(kernel);
  });
  afterEach(async () => {
    await clientSide?.close();
    await gateway?.close();
    await kernel?.close();
  });

  async function rawClient(heard: JSONRPCMessage[]): Promise<InMemoryTransport> {
    const [client, server] = InMemoryTransport.createLinkedPair();
    client.onmessage = (message) => heard.push(message);
    await client.start();
    await gateway.connect(server, kernel.workspace.tokens.agent);
    await client.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    clientSide = client;
    return client;
  }

  const workspace = () =>
    createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
      kernel.workspace.id,
    );
  const call = (id: string | number, ms: number) =>
    ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'slow__wait', arguments: { ms } },
    }) as const;
  const rows = async () => {
    const [run] = await workspace().runs.list();
    return run ? workspace().runs.run(run.id).tasks() : [];
  };

  it('the second call is refused -32600 and plants nothing; a cancel reaches the first', async () => {
    const heard: JSONRPCMessage[] = [];
    const client = await rawClient(heard);
    await client.send(call(7, 1));
    await eventually(async () => ((await rows()).length === 1 ? true : null), {
      what: 'the first row',
    });
    await client.send(call(7, 2));
    const refusal = await eventually(() =>
      heard.find((m) => 'id' in m && m.id === 7 && 'error' in m),
    );
    expect(refusal).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('request id 7 is in use') },
    });
    await client.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'changed my mind' },
    });
    const [row, ...others] = await eventually(async () => {
      const found = await rows();
      return found.every((r) => r.state === 'canceled') ? found : null;
    });
    expect(others).toEqual([]);
    expect(row).toMatchObject({ state: 'canceled', tool_input: { ms: 1 } });
    // Once the first call is answered (here: canceled), its id is free again.
    await client.send(call(7, 3));
    await eventually(async () => ((await rows()).length === 2 ? true : null), {
      what: 'the row of the id used again',
    });
  });
});

/*
 * Over HTTP the MCP SDK's transport routes each answer to the stream of the
 * request of its id: a second POST of an id in flight took that place, and
 * the first call's POST never got its answer, even once a person approved it.
 */
describe('MCP gateway over HTTP: a client reuses the id of a call still in flight', () => {
  const g = useHttpGateway({
    beforeGateway: (kernel) =>
      new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent })
        .putProfile({ approval_mode: 'ask', approval_rules: [] })
        .then(() => {}),
  });

  const post = (message: unknown, sessionId?: string) =>
    fetch(g.front.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${g.kernel.workspace.tokens.agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
      },
      body: JSON.stringify(message),
    });
  /**
   * POSTs each message on its own connection, all written in one tick once every
   * connection is open; each answer's status and raw text once its connection closes (the body as sent, chunked or not).
   */
  async function rawPostsAtOnce(sessionId: string, messages: unknown[]) {
    const { hostname: host, port, pathname } = new URL(g.front.url);
    const sockets = await Promise.all(
      messages.map(
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect({ host, port: Number(port) }, () => resolve(socket));
            socket.once('error', reject);
          }),
      ),
    );
    const answers = sockets.map(
      (socket) =>
        new Promise<{ status: number; text: string }>((resolve) => {
          let text = '';
          socket.on('data', (chunk) => {
            text += String(chunk);
          });
          socket.once('close', () => {
            const body = text.slice(text.indexOf('\r\n\r\n') + 4);
            resolve({ status: Number(text.split(' ')[1]), text: body });
          });
        }),
    );
    sockets.forEach((socket, index) => {
      const body = JSON.stringify(messages[index]);
      socket.write(
        [
          `POST ${pathname} HTTP/1.1`,
          `host: ${host}:${port}`,
          `authorization: Bearer ${g.kernel.workspace.tokens.agent}`,
          'content-type: application/json',
          'accept: application/json, text/event-stream',
          `mcp-session-id: ${sessionId}`,
          'mcp-protocol-version: 2025-06-18',
          'connection: close',
          `content-length: ${Buffer.byteLength(body)}`,
          '',
          body,
        ].join('\r\n'),
      );
    });
    return answers;
  }

  const write = (id: number, content: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'fs__write_file', arguments: { path: 'src/reused.txt', content } },
  });

  it('answers the second 400 -32600; the first still gets its answer once approved', async () => {
    const opened = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'reuser', version: '1' },
      },
    });
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
    const first = post(write(7, 'first'), sessionId);
    const people = createClient({ url: g.kernel.url, token: g.kernel.workspace.tokens.member });
    const parked = await eventually(async () => {
      const found = (await people.workspace(g.kernel.workspace.id).decisions.list()).find((d) =>
        d.isApproval(),
      );
      return found?.isApproval() ? found : null;
    });
    const second = await post(write(7, 'second'), sessionId);
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({
      id: 7,
      error: { code: -32600, message: expect.stringContaining('request id 7 is in use') },
    });
    await parked.approve();
    const answered = await (await first).text();
    expect(answered).toContain('"id":7');
    expect(answered).toContain('Successfully wrote');
    expect(readFileSync(join(g.dir, 'src/reused.txt'), 'utf8')).toBe('first');
  });

  it('two POSTs of one id sent at once: one is answered 400 -32600, the other once approved', async () => {
    const opened = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'racer', version: '1' },
      },
    });
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
    // Both bodies reach the gateway in one turn, before either call is delivered to the server.
    const both = await rawPostsAtOnce(sessionId, [write(8, 'one'), write(8, 'two')]);
    const people = createClient({ url: g.kernel.url, token: g.kernel.workspace.tokens.member });
    const parked = await eventually(async () => {
      const found = (await people.workspace(g.kernel.workspace.id).decisions.list()).filter((d) =>
        d.isApproval(),
      );
      return found.length > 0 ? found : null;
    });
    expect(parked).toHaveLength(1);
    const [decision] = parked;
    if (!decision?.isApproval()) throw new Error('expected a parked call');
    await decision.approve();
    const answers = await Promise.all(both);
    const refused = answers.find((a) => a.status === 400);
    const answered = answers.find((a) => a.status === 200);
    expect(refused?.text).toContain('"id":8');
    expect(refused?.text).toContain('"code":-32600');
    expect(refused?.text).toContain('request id 8 is in use');
    expect(answered?.text).toContain('"id":8');
    expect(answered?.text).toContain('Successfully wrote');
  });

  it('answers a batch that gives one id twice 400 -32600, running neither', async () => {
    const opened = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'batcher', version: '1' },
      },
    });
    const sessionId = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
    const answer = await post(
      [
        { jsonrpc: '2.0', id: 9, method: 'tools/list' },
        { jsonrpc: '2.0', id: 9, method: 'ping' },
      ],
      sessionId,
    );
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ id: 9, error: { code: -32600 } });
  });
});
