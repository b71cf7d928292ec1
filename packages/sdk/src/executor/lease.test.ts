import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOperations } from '../internal/operations.js';
import type { OperationsClient } from '../internal/transport.js';
import { holdLease, type Lease } from './lease.js';

/** Polls until a check holds; fails after ten seconds. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Heartbeats answered 200 with something that is not a lease: no real kernel
 * answers so, a proxy in front of one may (an empty 200, a 204), so a small
 * fake kernel on loopback answers them.
 */
describe('a heartbeat answered with no lease', () => {
  let server: Server;
  let url: string;
  /** What the next heartbeats are answered with, in turn; the last one repeats. */
  let answers: string[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let lease: Lease | undefined;

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const body = answers.length > 1 ? answers.shift()! : (answers[0] ?? '');
        response.writeHead(200, body === '' ? {} : { 'content-type': 'application/json' });
        response.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    lease?.stop();
    unhandled.length = 0;
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Holds a 3 s lease through the fake kernel, counting the heartbeats whose answers were read. */
  const hold = () => {
    const operations = createOperations({ url, token: 'alk_executor_test' });
    const counted = { answered: 0, lost: [] as Error[], lapsed: 0 };
    const heartbeat = operations.executor.heartbeat;
    const watched = {
      ...operations,
      executor: {
        ...operations.executor,
        heartbeat: {
          mutate: (...args: Parameters<typeof heartbeat.mutate>) => {
            const answer = heartbeat.mutate(...args);
            // Registered before the lease's own reaction: once counted, the lease read the answer
            // in the same turn.
            void answer.then(
              () => counted.answered++,
              () => counted.answered++,
            );
            return answer;
          },
        },
      },
    } as OperationsClient;
    lease = holdLease({
      operations: watched,
      address: { run_id: 'run_1', task_key: 't1', claim_id: 'clm_1' },
      leaseMs: 3000,
      claim: { lease_until: Date.now() + 3000, lease_ms: 3000 },
      sentAt: performance.now(),
      onLost: (error) => counted.lost.push(error),
      onLapsed: () => counted.lapsed++,
    });
    return { lease, counted };
  };

  it.each([
    ['an empty body', ''],
    ['null', 'null'],
    ['a number', '42'],
    ['an object without lease_until', '{"lease_ms":3000}'],
  ])('answered %s: keeps the lease it had, no crash', async (_name, body) => {
    answers = [body];
    const { lease, counted } = hold();
    const before = lease.heldUntil();
    await until(() => counted.answered >= 1, 'a heartbeat to be answered');
    // A turn later: a rejection left unhandled by the answer's reading has been told by now.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    expect(lease.heldUntil()).toBe(before);
    expect(counted.lost).toEqual([]);
  });

  it('renews from the next heartbeat that does answer a lease', async () => {
    answers = ['null', JSON.stringify({ lease_until: Date.now() + 3000, lease_ms: 3000 })];
    const { lease, counted } = hold();
    const before = lease.heldUntil();
    await until(() => counted.answered >= 2, 'two heartbeats to be answered');
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    expect(lease.heldUntil()).toBeGreaterThan(before);
    expect(lease.mayHold()).toBe(true);
  });
});
