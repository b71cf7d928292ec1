import type { AddressInfo } from 'node:net';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freshMigratedPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { SQL } from './sql-handle.js';
import { Store, type StoreLocation } from './store.js';
import { StoreUnavailableError } from './store-errors.js';

const pgSkip = await postgresSkipReason();

/**
 * A TCP relay to PostgreSQL that, once armed, lets the next COMMIT through to
 * the server and drops the connection instead of passing its answer back:
 * the database committed, and the kernel never heard it.
 */
async function relayLosingTheCommitAnswer(databaseUrl: string) {
  const direct = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let armed = false;
  let committedSent = false;
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(direct.port || 5432), direct.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk.includes('commit\u0000')) committedSent = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (committedSent && chunk.includes('COMMIT\u0000')) {
        armed = false;
        committedSent = false;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((settle) => server.listen(0, '127.0.0.1', settle));
  const relayed = new URL(direct);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as AddressInfo).port);
  return {
    url: relayed.toString(),
    arm() {
      armed = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((settle) => server.close(() => settle()));
    },
  };
}

/**
 * A unit of work whose COMMIT reached PostgreSQL but whose answer was lost
 * with the connection may have committed: the store says so (the change may
 * have been made; read before retrying) instead of the usual "nothing was
 * changed, retry later", which a client took at its word and did the change
 * a second time (a run started twice).
 */
describe.skipIf(pgSkip !== null)('a COMMIT whose answer is lost (postgres)', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('is answered as a change that may have been made, never as nothing changed', async () => {
    const databaseUrl = await freshMigratedPostgresDatabase();
    const relay = await relayLosingTheCommitAnswer(databaseUrl);
    closers.push(() => relay.close());
    const location: StoreLocation = { databaseUrl: relay.url };
    const store = await Store.open(location);
    closers.push(() => store.close());
    const reader = await Store.open({ databaseUrl });
    closers.push(() => reader.close());

    relay.arm();
    const outcome = await store
      .transaction(async (tx) => {
        await tx[SQL].db
          .insertInto('workspaces')
          .values({ id: 'ws_committed', name: 'w', created_at: tx.now })
          .execute();
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(outcome).toBeInstanceOf(StoreUnavailableError);
    const { code, detail } = outcome as StoreUnavailableError;
    expect(code).toBe('store_unavailable');
    expect(detail).not.toMatch(/nothing was changed/);
    expect(detail).toMatch(/may have been made/);
    // It was: the database committed it.
    const rows = await reader.db.selectFrom('workspaces').select('id').execute();
    expect(rows.map((row) => row.id)).toContain('ws_committed');
  });
});
