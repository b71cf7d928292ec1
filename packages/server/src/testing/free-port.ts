import { createServer } from 'node:net';

/**
 * Ports handed out below Linux's ephemeral range (32768-60999 by default), so
 * no `listen(0)` and no outgoing connection on this machine is given one of
 * them between the probe here and the test's own listen. Each process starts
 * its walk at its own offset, so two test workers rarely probe the same port.
 */
const LOW = 20_000;
const SPAN = 12_000;
let next = LOW + ((process.pid * 7919) % SPAN);

/** Whether nothing listens on `port` at 127.0.0.1 (taken, then released). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}

/**
 * A free loopback port for a server that must know its port before it
 * starts (a kernel whose notices link to its own URL, Prometheus). A port
 * from `listen(0)` would be released into the ephemeral range, where any
 * connection made meanwhile may take it (EADDRINUSE at the test's listen).
 * @throws Error when no port in the range is free.
 */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < SPAN; tried += 1) {
    const port = next;
    next = next + 1 >= LOW + SPAN ? LOW : next + 1;
    if (await isFree(port)) return port;
  }
  throw new Error(`no free loopback port between ${LOW} and ${LOW + SPAN - 1}`);
}
