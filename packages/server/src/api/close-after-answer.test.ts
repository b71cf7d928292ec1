import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writeWholeThenRead } from '../testing/raw-connection.js';
import { closeAfterAnswer, DEFAULT_LINGERING, type Lingering } from './close-after-answer.js';

/** Short periods, for the tests of when a lingering connection closes. */
const SHORT: Lingering = { idleMs: 200, maxMs: 1_500 };

/**
 * A server that answers 413 before reading any body, closing after the
 * answer as `closing` says (lingering for `linger`).
 */
async function refusingServer(
  closing: 'lingering' | 'at once',
  linger: Lingering = SHORT,
): Promise<Server> {
  const server = createServer((_req, res) => {
    if (closing === 'lingering') closeAfterAnswer(res, linger);
    else res.setHeader('connection', 'close');
    res.writeHead(413, { 'content-type': 'text/plain' });
    res.end('too large');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** What a client that writes its whole request before reading anything gets back. */
function writeAllThenRead(server: Server, bodyBytes: number): Promise<string> {
  const { port } = server.address() as AddressInfo;
  const head = `POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${bodyBytes}\r\n\r\n`;
  return writeWholeThenRead(`http://127.0.0.1:${port}`, head, Buffer.alloc(bodyBytes, 120));
}

/**
 * When the server closes a connection that announced a large body and sends
 * `perTick` bytes every 20 ms: how long after its answer came, and after the
 * request was sent (the cap's timer starts between the two).
 */
async function closedAfterMs(
  server: Server,
  perTick: number,
): Promise<{ afterAnswer: number; afterSend: number }> {
  const { port } = server.address() as AddressInfo;
  const serverSide = new Promise<Socket>((resolve) => server.once('connection', resolve));
  // Half open: the client goes on sending after the server's FIN, as a client writing a body does.
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  socket.on('error', () => {});
  const answered = new Promise<number>((resolve) =>
    socket.once('data', () => resolve(performance.now())),
  );
  const sent = performance.now();
  socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${1e9}\r\n\r\nx`);
  const drip = setInterval(() => {
    if (perTick > 0 && socket.writable) socket.write(Buffer.alloc(perTick, 120));
  }, 20);
  await new Promise((resolve) => void serverSide.then((side) => side.once('close', resolve)));
  const closed = performance.now();
  clearInterval(drip);
  socket.destroy();
  return { afterAnswer: closed - (await answered), afterSend: closed - sent };
}

describe('closing a connection after an answer to an unread body', () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });
  const serve = async (closing: 'lingering' | 'at once', linger?: Lingering) => {
    const server = await refusingServer(closing, linger);
    servers.push(server);
    return server;
  };

  it('lets a client that writes its whole body first read the answer', async () => {
    // The kernel's own periods: on a loaded machine writing 32 MB can outlast the short cap,
    // and a client still sending at the cap is reset, as the last test shows.
    const server = await serve('lingering', DEFAULT_LINGERING);
    // 32 MB: more than the loopback socket buffers hold, so the server must read on.
    const answer = await writeAllThenRead(server, 32 * 1024 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('too large');
  });

  it('shows the reset that closing at once gives that client (the case lingering fixes)', async () => {
    const server = await serve('at once');
    expect(await writeAllThenRead(server, 32 * 1024 * 1024)).toMatch(/^error (ECONNRESET|EPIPE)$/);
  });

  it('closes when the client goes quiet, after the idle period', async () => {
    const server = await serve('lingering');
    const { afterAnswer } = await closedAfterMs(server, 0);
    // One idle period (200 ms) of silence, seen at the first or second check.
    expect(afterAnswer).toBeLessThan(1_400);
  });

  it('closes a client that keeps sending at the cap', async () => {
    const server = await serve('lingering');
    const { afterAnswer, afterSend } = await closedAfterMs(server, 4096);
    // Not at an idle check (every 200 ms) while bytes arrive: at the 1.5 s cap.
    expect(afterSend).toBeGreaterThanOrEqual(1_490);
    expect(afterAnswer).toBeLessThan(5_000);
  });
});
