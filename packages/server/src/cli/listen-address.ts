import { createServer } from 'node:net';
import { shownValue } from './shown-value.js';
/**
 * Reads `host:port` (`[::1]:9464` for an IPv6 host; a bare `:9464` listens on 127.0.0.1).
 * @throws Error when the text is not of that form or the port is outside 0..65535.
 */
export function parseListenAddress(text: string, flag: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) {
    throw new Error(`${flag} wants host:port (e.g. 127.0.0.1:9464), not ${shownValue(text)}`);
  }
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

/**
 * Listens on `host:port` and closes at once: the error the real listen would
 * meet (EADDRNOTAVAIL for an address this machine does not have, EADDRINUSE,
 * EACCES), or null when it can listen there. Run before anything opens, so a
 * listen that cannot work leaves no store behind.
 */
export function probeListen(host: string, port: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((settle) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => settle(error));
    server.listen({ host, port }, () => server.close(() => settle(null)));
  });
}
