import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { capturedLogger, type LogLine } from '../testing/log-lines.js';
import { openRaw, type RawConnection } from '../testing/raw-connection.js';
import { backends } from '../testing/stores.js';
import { readNote } from './request-notes.js';

const [sqlite] = await backends();

/** What the kernel answered a request with, once its response closed. */
interface Answered {
  /** The request's `x-attempt` header. */
  attempt: string;
  status: number;
  code: string | null;
}

/** Polls until `found` gives a value (a generous bound: the machine may be loaded). */
async function waitFor<T>(found: () => T | undefined): Promise<T> {
  for (let waited = 0; waited < 30_000; waited += 20) {
    const value = found();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('not found within 30 s');
}

// A client that closes its connection while it sends its body is the client's doing: the
// kernel must neither answer it as a fault of its own (5xx, store_unavailable) nor log one.
describe('a body the client abandons midway', () => {
  let d: Deployment;
  let lines: LogLine[];
  const responses = new Map<string, ServerResponse>();
  let attempts = 0;
  beforeAll(async () => {
    const captured = capturedLogger('info');
    lines = captured.lines;
    d = await deploy(sqlite!, { logger: captured.logger });
    const record = (req: IncomingMessage, res: ServerResponse) => {
      responses.set(String(req.headers['x-attempt']), res);
    };
    // A request sent with Expect: 100-continue comes as checkContinue instead of request.
    d.airlock.http.server.on('request', record);
    d.airlock.http.server.on('checkContinue', record);
  });
  afterAll(async () => {
    await d.close();
  });

  /** Sends a POST announcing 1000 bytes of body, `sent` of them, then closes the connection. */
  async function abandon(path: string, options: { afterContinue: boolean }): Promise<Answered> {
    const raw: RawConnection = await openRaw(d.url);
    const attempt = `a${attempts++}`;
    raw.socket.write(
      `POST ${path} HTTP/1.1\r\nhost: x\r\nx-attempt: ${attempt}\r\nauthorization: Bearer ${d.tokens.member}\r\n` +
        'content-type: application/json\r\ncontent-length: 1000\r\n' +
        (options.afterContinue ? 'expect: 100-continue\r\n' : '') +
        '\r\n',
    );
    // With Expect: 100-continue the 100 goes out once the kernel is reading the body.
    if (options.afterContinue) await waitFor(() => raw.received().includes(' 100 ') || undefined);
    raw.socket.end('{"approval_mode":');
    await raw.closed;
    // The kernel answers even a client that left (nobody reads it): what it says is what metrics,
    // traces and logs record.
    const res = await waitFor(() => responses.get(attempt));
    // tRPC notes its error and writes nothing on a closed connection.
    await waitFor(() => res.headersSent || readNote(res)?.errorCode || undefined);
    return { attempt, status: res.statusCode, code: readNote(res)?.errorCode ?? null };
  }

  it.each([
    ['REST, while its body is read', '/api/v1/workspaces/WS/runs', true],
    ['REST, sent at once with its end', '/api/v1/workspaces/WS/runs', false],
    ['tRPC, while its body is read', '/trpc/runs.create', true],
    ['tRPC, sent at once with its end', '/trpc/runs.create', false],
  ])(
    'over %s is answered as a client error, and nothing is logged',
    async (_case, path, afterContinue) => {
      const answer = await abandon(path.replace('WS', d.workspaceId), { afterContinue });
      expect(answer).toMatchObject({ status: 400, code: 'invalid_json' });
      expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    },
  );
});
