import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { gatewayArgs, gatewayEnv, gatewayFixture } from './stdio-gateway.js';

/*
 * What the stdio gateway does with input a client should not send: every
 * bad line gets its JSON-RPC error, and a line it cannot read ends the
 * gateway with a reason on stderr instead of leaving it hung.
 */
describe('airlock gateway mcp --stdio: bad input', () => {
  const fixture = gatewayFixture();
  const start = () => fixture.start();

  it('a line over the limit ends the gateway with a reason; an SDK client sees it close', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: gatewayArgs(fixture.dir),
      env: gatewayEnv(fixture.kernel),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const client = new Client({ name: 'desktop', version: '1.0.0' });
    const closed = new Promise<void>((resolve) => {
      client.onclose = resolve;
    });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // Not awaited: the gateway stops reading, so the rest of the line never drains.
    void transport.send({
      jsonrpc: '2.0',
      id: 'huge',
      method: 'tools/call',
      params: { name: 'fs__read_text_file', arguments: { path: 'a.txt', pad: 'x'.repeat(5e6) } },
    });
    await closed;
    expect(stderr).toContain('over the 4 MiB limit');
    expect(stderr).toContain('shutting down');
  });

  it('answers the over-limit line with an error and exits non-zero', async () => {
    const gateway = start();
    await gateway.initialize();
    gateway.send(
      `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"${'x'.repeat(5e6)}"}}`,
    );
    expect(await gateway.exited).toBe(1);
    expect(gateway.answers.at(-1)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(gateway.stderr()).not.toMatch(/\n\s+at /);
  });

  it('exits as soon as stdin ends', async () => {
    const gateway = start();
    await gateway.initialize();
    gateway.child.stdin.end();
    expect(await gateway.exited).toBe(0);
  });

  it('answers every line that is not JSON or not JSON-RPC, with its id when readable', async () => {
    const gateway = start();
    await gateway.initialize();
    const bad: [string, string | null, number][] = [
      ['this is not json', null, -32700],
      ['{"jsonrpc":"2.0","id":"trunc","method":"tools/list"', null, -32700],
      ['{"id":"nojsonrpc","method":"tools/list"}', 'nojsonrpc', -32600],
      ['{"jsonrpc":"2.0","id":"mnum","method":5}', 'mnum', -32600],
      [
        '{"jsonrpc":"2.0","id":"pt-obj","method":"tools/call","params":{"name":"fs__read_text_file","arguments":{"path":"a"},"_meta":{"progressToken":{"a":1}}}}',
        'pt-obj',
        -32600,
      ],
      ['{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', null, -32600],
    ];
    for (const [line, id, code] of bad) {
      const before = gateway.answers.length;
      gateway.send(line);
      const answer = await eventually(() => gateway.answers.slice(before).find(() => true));
      expect(answer, line).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
    }
    const tokenAnswer = gateway.answers.find((a) => a.id === 'pt-obj') as {
      error: { message: string };
    };
    expect(tokenAnswer.error.message).toContain('progressToken');
    gateway.send('{"jsonrpc":"2.0","id":"ping","method":"ping"}');
    expect(await gateway.answer('ping')).toMatchObject({ result: {} });
    // Each dropped line leaves its trace on stderr.
    expect(gateway.stderr().match(/invalid JSON-RPC|not JSON/g)?.length).toBe(bad.length);
    gateway.child.stdin.end();
    expect(await gateway.exited).toBe(0);
  });

  it('a request id JSON-RPC allows but a row cannot keep (300 characters, NUL) still runs its call', async () => {
    writeFileSync(join(fixture.dir, 'ids.txt'), 'read by any id');
    const gateway = start();
    await gateway.initialize();
    for (const id of ['i'.repeat(300), 'a\u0000b']) {
      gateway.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'fs__read_text_file', arguments: { path: 'ids.txt' } },
        }),
      );
      expect(await gateway.answer(id), JSON.stringify(id.slice(0, 5))).toMatchObject({
        result: { content: [{ type: 'text', text: 'read by any id' }] },
      });
    }
  });
});
