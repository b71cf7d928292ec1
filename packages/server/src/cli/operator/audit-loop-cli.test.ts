import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testing/free-port.js';
import { runOperatorCli } from '../../testing/operator-cli.js';

// Past this many pages the server answers an empty page, so an export without the guard ends
// (exit 0, the same record written again and again) instead of hanging.
const GIVE_UP = 25;

/**
 * A kernel whose audit trail answers the same record (seq 5) to every page, whatever `after`
 * or `before` asks. Its API document says it is an Airlock kernel, so the CLI takes its loose
 * record as another version's.
 */
function stuckKernel(asked: string[]): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://kernel');
    if (url.pathname.endsWith('/openapi.json')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ info: { title: 'Airlock kernel API' } }));
    }
    asked.push(url.search);
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    response.end(asked.length >= GIVE_UP ? '' : `${JSON.stringify({ seq: 5, at: 1 })}\n`);
  });
}

describe('airlock audit export stops when the kernel does not move past the last record', {
  timeout: 120_000,
}, () => {
  const asked: string[] = [];
  const server = stuckKernel(asked);
  let url = '';

  beforeAll(async () => {
    const port = await freePort();
    await new Promise<void>((listening) => server.listen(port, '127.0.0.1', listening));
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise((closed) => server.close(closed));
  });

  const target = () => ({ url, workspaceId: 'ws_x', tokens: { member: 'alk_member_x' } });

  it.each([
    [[], 'the kernel answered record 5 when asked for records after 5'],
    [['--newest'], 'the kernel answered record 5 when asked for records before 5'],
    [['--run', 'run_1'], 'the kernel answered record 5 when asked for records after 5'],
  ])('audit export %j ends in exit 1 after the second page', async (flags, message) => {
    asked.length = 0;
    const outcome = await runOperatorCli(target(), ['audit', 'export', ...flags]);
    expect(outcome.stderr).toContain(`airlock audit export: ${message}`);
    expect(outcome.code).toBe(1);
    // The first page's record is written once, not again.
    expect(outcome.stdout).toBe(`${JSON.stringify({ seq: 5, at: 1 })}\n`);
    expect(asked).toHaveLength(2);
  });
});
