import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testing/free-port.js';
import { runOperatorCli } from '../../testing/operator-cli.js';

const RECORDS = [1, 2, 3].map((seq) => ({ seq, at: seq }));

/**
 * A kernel whose audit trail answers a first page of three records, then goes away as a
 * restarting kernel does (503 store_unavailable, in the kernel's words). Its API document
 * says it is an Airlock kernel, so the CLI takes its loose records as another version's.
 */
function failingKernel(): Server {
  let pages = 0;
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://kernel');
    if (url.pathname.endsWith('/openapi.json')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ info: { title: 'Airlock kernel API' } }));
    }
    pages += 1;
    if (pages === 1) {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      return response.end(RECORDS.map((record) => `${JSON.stringify(record)}\n`).join(''));
    }
    response.writeHead(503, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ error: { code: 'store_unavailable', detail: 'the store is restarting' } }),
    );
  });
}

describe('airlock audit export cut off after some pages', { timeout: 120_000 }, () => {
  let server: Server;
  let url = '';

  beforeAll(async () => {
    server = failingKernel();
    const port = await freePort();
    await new Promise<void>((listening) => server.listen(port, '127.0.0.1', listening));
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise((closed) => server.close(closed));
  });

  it('says what it wrote and the command that resumes after it', async () => {
    const target = { url, workspaceId: 'ws_x', tokens: { member: 'alk_member_x' } };
    const outcome = await runOperatorCli(target, ['audit', 'export', '--run', 'run_1']);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe(RECORDS.map((record) => `${JSON.stringify(record)}\n`).join(''));
    expect(outcome.stderr).toBe(
      'airlock: store_unavailable: the store is restarting\n' +
        '  wrote 3 decisions, through sequence 3; resume with: airlock audit export --run run_1 --after 3\n',
    );
  });
});
