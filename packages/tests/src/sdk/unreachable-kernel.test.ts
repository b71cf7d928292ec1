import { createServer } from 'node:net';
import { ConnectionError, createClient, createExecutor, isConnectionError } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';

/** A loopback port nothing listens on: bound once to learn it, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the SDK against a kernel that cannot be reached', () => {
  it('createExecutor: ready rejects with ConnectionError', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const executor = createExecutor({ url, token: 'x', tools: { bash: () => 'ran' } });
    try {
      const error = await executor.ready.then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(ConnectionError);
      expect(isConnectionError(error)).toBe(true);
      expect((error as ConnectionError).status).toBeNull();
    } finally {
      await executor.close();
    }
  });

  it('a client call rejects with ConnectionError naming the kernel', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const runs = createClient({ url, token: 'x' }).workspace('ws').runs;
    const error = await runs.list().catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).detail).toContain(url);
  });
});
