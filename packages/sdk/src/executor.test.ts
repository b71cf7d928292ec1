import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { isServerError } from './errors.js';
import { createExecutor } from './executor.js';

/** Polls until a check holds; fails after ten seconds. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A cable nudge without a sequence number: no real kernel sends one, so a
 * small fake kernel on loopback does, then drops the cable to see where the
 * executor resumes.
 */
describe("an executor's cable told a nudge without a position", () => {
  let server: Server;
  let sockets: WebSocketServer;
  let url: string;
  /** The `after` each cable connection asked to resume from. */
  const resumedAfter: (string | null)[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const body = request.url?.startsWith('/trpc/')
          ? { result: { data: { items: [] } } }
          : { claim: null };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      });
    });
    sockets = new WebSocketServer({ server });
    sockets.on('connection', (socket, request) => {
      resumedAfter.push(new URL(request.url ?? '/', 'http://kernel').searchParams.get('after'));
      socket.send('{"type":"ready","after":5}');
      if (resumedAfter.length > 1) return;
      socket.send('{"type":"work_available","kind":"tool","run_id":"run_1","task_key":"t1"}');
      socket.close();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('resumes after the last position it was told, not after NaN', async () => {
    const executor = createExecutor({ url, token: 'alk_executor_test', tools: { pay: () => 1 } });
    try {
      await until(() => resumedAfter.length >= 2, 'the cable to reconnect');
      expect(resumedAfter.slice(0, 2)).toEqual(['latest', '5']);
    } finally {
      await executor.close({ abort: true });
    }
  });
});

/**
 * Claims answered outside the contract (an empty 200, a claim with no row):
 * no real kernel answers so, so a small fake kernel on loopback does.
 */
describe('an executor whose claim is answered with no readable claim', () => {
  let server: Server;
  let sockets: WebSocketServer;
  let url: string;
  let claimAnswer = '';
  let claims = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.url?.startsWith('/trpc/')) {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{"result":{"data":{"items":[]}}}');
          return;
        }
        if (request.url?.endsWith('/claim')) claims++;
        response.writeHead(200, claimAnswer === '' ? {} : { 'content-type': 'application/json' });
        response.end(claimAnswer);
      });
    });
    sockets = new WebSocketServer({ server });
    sockets.on('connection', (socket) => socket.send('{"type":"ready","after":0}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const noRow = JSON.stringify({
    claim_id: 'clm_1',
    lease_until: Date.now() + 30_000,
    lease_ms: 30_000,
  });

  it.each([
    ['an empty body', ''],
    ['a claim with no row', JSON.stringify({ claim: JSON.parse(noRow) })],
    ['a claim with no lease', JSON.stringify({ claim: { claim_id: 'clm_1', task: {} } })],
  ])(
    'claimNext answered %s: onError is told a ServerError, no handler runs',
    async (_name, answer) => {
      claimAnswer = answer;
      const errors: unknown[] = [];
      const ran: unknown[] = [];
      const executor = createExecutor({
        url,
        token: 'alk_executor_test',
        tools: { pay: (input) => void ran.push(input) },
        onError: (error) => errors.push(error),
      });
      try {
        await until(() => errors.length > 0, 'the claim to be reported');
        expect(isServerError(errors[0])).toBe(true);
        expect(errors[0]).toMatchObject({ code: 'internal' });
        expect(ran).toEqual([]);
      } finally {
        await executor.close({ abort: true });
      }
    },
  );

  it('take() answered a claim with no row rejects with a ServerError', async () => {
    claimAnswer = noRow;
    const executor = createExecutor({ url, token: 'alk_executor_test', tools: {} });
    try {
      const before = claims;
      await expect(executor.take('run_1', 't1')).rejects.toSatisfy(isServerError);
      expect(claims).toBe(before + 1);
    } finally {
      await executor.close({ abort: true });
    }
  });
});
