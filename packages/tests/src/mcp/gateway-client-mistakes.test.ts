import { createClient } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { gatewayFixture } from './stdio-gateway.js';

/*
 * A client's mistakes get the JSON-RPC error that names them (-32602 for
 * bad params, -32600 for a request before initialize) with a one-line
 * message, and nothing runs or is recorded for them.
 */
describe('airlock gateway mcp: client mistakes', () => {
  const fixture = gatewayFixture();
  const start = () => fixture.start();
  const runCount = async () =>
    (
      await createClient({ url: fixture.kernel.url, token: fixture.kernel.workspace.tokens.member })
        .workspace(fixture.kernel.workspace.id)
        .runs.list()
    ).length;
  const call = (id: string, params: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
  // Written as text: JSON.stringify itself overflows the stack on the deepest one.
  const deepCall = (id: string, depth: number) =>
    `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"fs__read_text_file","arguments":${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}}}`;

  it('answers bad tools/call params with -32602 and a one-line message, recording nothing', async () => {
    const gateway = start();
    await gateway.initialize();
    const runsBefore = await runCount();
    const cases: [string, unknown][] = [
      ['name-number', { name: 5, arguments: {} }],
      ['args-string', { name: 'fs__read_text_file', arguments: 'a.txt' }],
      ['no-params', undefined],
    ];
    for (const [id, params] of cases) gateway.send(call(id, params));
    gateway.send(deepCall('deep-5000', 5000));
    gateway.send(deepCall('deep-100', 100));
    for (const id of [...cases.map(([id]) => id), 'deep-5000', 'deep-100']) {
      const answer = (await gateway.answer(id)) as { error: { code: number; message: string } };
      expect(answer.error.code, id).toBe(-32602);
      expect(answer.error.message, id).not.toContain('\n');
      expect(answer.error.message, id).not.toMatch(/stack|invalid_type/);
    }
    expect(await runCount()).toBe(runsBefore);
  });

  it('answers malformed params of initialize and tools/list with -32602 and a one-line message', async () => {
    const gateway = start();
    const request = (id: string, method: string, params: unknown) =>
      JSON.stringify({ jsonrpc: '2.0', id, method, params });
    gateway.send(request('init-bad', 'initialize', { protocolVersion: 5 }));
    const refusedInit = (await gateway.answer('init-bad')) as { error: { message: string } };
    expect(refusedInit).toMatchObject({ error: { code: -32602 } });
    expect(refusedInit.error.message).toMatch(
      /^initialize: params\.protocolVersion: expected string/,
    );
    await gateway.initialize();
    const runsBefore = await runCount();
    const cases: [string, string, unknown][] = [
      ['cursor-number', 'tools/list', { cursor: 5 }],
      ['cursor-object', 'tools/list', { cursor: { page: 2 } }],
      ['cursor-null', 'tools/list', { cursor: null }],
    ];
    for (const [id, method, params] of cases) gateway.send(request(id, method, params));
    for (const [id] of cases) {
      const answer = (await gateway.answer(id)) as { error: { code: number; message: string } };
      expect(answer.error?.code, id).toBe(-32602);
      expect(answer.error.message, id).toMatch(/^tools\/list: params\.cursor: expected string/);
      expect(answer.error.message, id).not.toMatch(/\n|invalid_type|"code"/);
    }
    // A malformed cancellation is dropped with one line on stderr, not a validation dump.
    gateway.send(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: { x: 1 } },
      }),
    );
    gateway.send(request('list-ok', 'tools/list', {}));
    expect(await gateway.answer('list-ok')).toHaveProperty('result.tools');
    await eventually(() => gateway.stderr().includes('malformed notification'));
    expect(gateway.stderr()).toContain(
      'the client sent a malformed notification, dropped: notifications/cancelled: params.requestId',
    );
    expect(gateway.stderr()).not.toMatch(/invalid_union|Uncaught/);
    expect(await runCount()).toBe(runsBefore);
  });

  it('maps a fixture.kernel refusal of the arguments (over the body limit) to -32602', async () => {
    const gateway = start();
    await gateway.initialize();
    gateway.send(call('big', { name: 'fs__read_text_file', arguments: { path: 'x'.repeat(2e6) } }));
    const answer = (await gateway.answer('big')) as { error: { code: number; message: string } };
    expect(answer.error, answer.error.message).toMatchObject({ code: -32602 });
    expect(answer.error.message).toContain('payload_too_large');
  });

  it('refuses tools/call and tools/list before initialize, running nothing', async () => {
    const gateway = start();
    const runsBefore = await runCount();
    gateway.send(call('early', { name: 'fs__read_text_file', arguments: { path: 'a.txt' } }));
    gateway.send('{"jsonrpc":"2.0","id":"list","method":"tools/list"}');
    gateway.send('{"jsonrpc":"2.0","id":"ping","method":"ping"}');
    expect(await gateway.answer('early')).toMatchObject({ error: { code: -32600 } });
    expect(await gateway.answer('list')).toMatchObject({ error: { code: -32600 } });
    expect(await gateway.answer('ping')).toMatchObject({ result: {} });
    await gateway.initialize();
    gateway.send('{"jsonrpc":"2.0","id":"list2","method":"tools/list"}');
    expect(await gateway.answer('list2')).toHaveProperty('result.tools');
    expect(await runCount()).toBe(runsBefore);
  });
});
