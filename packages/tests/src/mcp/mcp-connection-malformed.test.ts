import { fileURLToPath } from 'node:url';
import { McpServerConnection } from '@airlock/mcp';
import { afterEach, describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('./fixtures/malformed-answers-server.mjs', import.meta.url));

/*
 * A server whose answer does not fit MCP's schema: the failure says so in one
 * line naming the server and the field, never the SDK's multi-line validation
 * dump; for a call, it says the tool may have run (the server answered), so a
 * row failed with it does not read as a call that never happened. So does a
 * call the server never answered, once its timeout cut it off.
 */
describe('McpServerConnection: answers that are no MCP result', () => {
  let connection: McpServerConnection | undefined;
  afterEach(async () => {
    await connection?.close();
  });

  const connect = (env: Record<string, string> = {}, callTimeoutMs?: number) => {
    connection = new McpServerConnection(
      { name: 'odd', spec: { command: process.execPath, args: [entry], env } },
      { callTimeoutMs },
    );
    return connection;
  };

  it('a tools/call answer that is no tool result says the tool may have run', async () => {
    const odd = connect();
    await odd.listTools();
    const failure = await odd.callTool('mangle', {}, new AbortController().signal).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toBe(
      'MCP error -32603: the server odd answered mangle with no MCP tool result (content: expected array, received string): the tool may have run, and its outcome is unknown',
    );
  });

  it('a tools/call the server never answers says, once cut off, that the tool may have run', async () => {
    const odd = connect({}, 200);
    await odd.listTools();
    const failure = await odd.callTool('hang', {}, new AbortController().signal).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toBe(
      'MCP error -32001: the server odd did not answer hang within 200 ms, and the call was cancelled on it: the tool may have run, and its outcome is unknown',
    );
  });

  it('lines that are no JSON-RPC message are passed over, and the answer behind them is read', async () => {
    const odd = connect();
    await odd.listTools();
    const result = await odd.callTool('noisy', {}, new AbortController().signal);
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('a tools/list answer that is no tool list names the field in one line', async () => {
    const failure = await connect({ BAD_LIST: '1' })
      .listTools()
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(failure?.message).toBe(
      'MCP error -32603: its tools/list answer is no MCP tool list (tools[0].inputSchema: expected object, received undefined)',
    );
  });
});
