import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { KernelUnavailable, sendEvent } from './kernel-call.js';

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a kernel the hook client cannot reach', () => {
  it('is named in the refusal without the password its URL holds', async () => {
    const url = `http://ci:hunter2@127.0.0.1:${await closedPort()}`;
    const event = { agent: 'claude-code', session_id: 's', event: 'pre_tool' } as const;
    const refused = await sendEvent({ url, token: 'alk_agent_x' }, event, 5_000).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(KernelUnavailable);
    const message = (refused as KernelUnavailable).message;
    expect(message).toMatch(
      /^cannot reach the kernel at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/,
    );
    expect(message).not.toContain('hunter2');
  });
});
