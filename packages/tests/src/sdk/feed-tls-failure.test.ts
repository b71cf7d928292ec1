import { createServer, type Server } from 'node:http';
import { createClient, isConnectionError } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from '../support/member-kernel.js';

/*
 * An https url whose server speaks plain http (or a certificate the process does not trust)
 * fails every connection the same way: a feed and a decisions watcher read it as a kernel not
 * reached for now and tried again for ever, never ending; they end with the ConnectionError,
 * as an executor does.
 */
describe('a feed and a decisions watcher over a TLS connection that cannot be made', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('end with ConnectionError connection_failed', { timeout: 60_000 }, async () => {
    const workspace = createClient({ url, token: 't' }).workspace('ws');
    const feed = workspace.feed({ after: 0 });
    const watcher = new AbortController();
    const fed = (async () => {
      for await (const _event of feed) {
        // nothing arrives
      }
    })().catch((error: unknown) => error);
    const watched = (async () => {
      for await (const _decision of workspace.decisions.watch({ signal: watcher.signal })) {
        // nothing arrives
      }
    })().catch((error: unknown) => error);
    try {
      for (const ended of [await within(fed, 20_000), await within(watched, 20_000)]) {
        expect(isConnectionError(ended)).toBe(true);
        expect(ended).toMatchObject({ code: 'connection_failed' });
      }
    } finally {
      feed.close();
      watcher.abort();
    }
  });
});
