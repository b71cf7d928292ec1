import { PassThrough } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectGuarded } from './request-guard.js';
import { GatewayStdioTransport } from './stdio-transport.js';

/**
 * The stdio transport under the MCP SDK's own server, fed through in-memory
 * streams: a call's handler waits until its signal aborts (a call parked for a
 * person that the client cancels) or until the test lets it answer.
 */
async function servedTransport() {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let buffered = '';
  output.on('data', (chunk) => {
    buffered += String(chunk);
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      lines.push(JSON.parse(buffered.slice(0, end)));
      buffered = buffered.slice(end + 1);
    }
  });
  const answerCalls: Array<() => void> = [];
  const server = new Server({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
  server.setRequestHandler(
    CallToolRequestSchema,
    (_request, extra) =>
      new Promise((resolve) => {
        const answer = () => resolve({ content: [{ type: 'text', text: 'ran' }] });
        answerCalls.push(answer);
        extra.signal.addEventListener('abort', answer);
      }),
  );
  const transport = new GatewayStdioTransport(input, output);
  await connectGuarded(server, transport);
  const send = (message: object) => input.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    },
  });
  await until(() => lines.some((line) => line.id === 'init'));
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const call = (id: string | number) =>
    send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x', arguments: {} } });
  let ended = false;
  void transport.ended.then(() => {
    ended = true;
  });
  return { input, lines, send, call, answerCalls, isEnded: () => ended, ended: transport.ended };
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not so after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the stdio transport when the client closes its input', () => {
  it('ends once a call the client cancelled before closing is dropped (the SDK answers none)', async () => {
    const served = await servedTransport();
    served.call(2);
    await until(() => served.answerCalls.length === 1);
    served.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 2, reason: 'the user interrupted' },
    });
    served.input.end();
    expect(await served.ended).toBeNull();
    expect(served.lines.some((line) => line.id === 2)).toBe(false);
  });

  it('answers a call whose cancellation was malformed (dropped, so it cancelled nothing)', async () => {
    const served = await servedTransport();
    served.call(3);
    await until(() => served.answerCalls.length === 1);
    served.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 3, reason: 5 },
    });
    // The call answers only once the transport has read the end of the input.
    served.input.once('end', () => served.answerCalls[0]?.());
    served.input.end();
    expect(await served.ended).toBeNull();
    expect(served.lines.find((line) => line.id === 3)).toMatchObject({
      result: { content: [{ type: 'text', text: 'ran' }] },
    });
  });

  it('answers a call 0 the client cancelled (the SDK acts on no cancellation of id 0)', async () => {
    const served = await servedTransport();
    served.call(0);
    await until(() => served.answerCalls.length === 1);
    served.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0 } });
    served.input.once('end', () => served.answerCalls[0]?.());
    served.input.end();
    expect(await served.ended).toBeNull();
    expect(served.lines.some((line) => line.id === 0 && 'result' in line)).toBe(true);
  });

  it('answers a second call under an id in flight -32600 at once, and waits for the first', async () => {
    const served = await servedTransport();
    served.call('same');
    served.call('same');
    await until(() => served.lines.some((line) => line.id === 'same' && 'error' in line));
    expect(served.lines.find((line) => line.id === 'same')).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('"same" is in use') },
    });
    await until(() => served.answerCalls.length === 1);
    served.input.end();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(served.isEnded()).toBe(false);
    served.answerCalls[0]?.();
    expect(await served.ended).toBeNull();
    expect(served.lines.filter((line) => line.id === 'same')).toHaveLength(2);
    expect(served.answerCalls).toHaveLength(1);
  });
});

describe('the stdio transport reading a line that is no JSON-RPC message', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null, '"id" must be a string or an integer'],
    [
      '{"jsonrpc":"2.0","id":"x","method":"ping","extra":1}',
      'x',
      '"extra" is no member of a JSON-RPC message',
    ],
  ])('%s answers -32600 with id %s: %s', async (line, id, reason) => {
    const served = await servedTransport();
    served.input.write(`${line}\n`);
    await until(() => served.lines.some((answer) => 'error' in answer));
    expect(served.lines.find((answer) => 'error' in answer)).toEqual({
      jsonrpc: '2.0',
      id,
      error: { code: -32600, message: `Invalid Request: ${reason}` },
    });
  });
});
