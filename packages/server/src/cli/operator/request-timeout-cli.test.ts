import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorCli } from '../../testing/operator-cli.js';

/** A loopback server that takes connections and never answers: a kernel stuck or a wrong port. */
let silent: Server;
let url: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  silent = createServer((socket) => sockets.push(socket));
  await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
  url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((closed) => silent.close(closed));
});

const target = () => ({ url, workspaceId: 'ws_silent', tokens: { member: 'alk_member_x' } });

describe('an operator command gives up on a kernel that does not answer', {
  timeout: 60_000,
}, () => {
  it('after --timeout, saying so, with exit 1', async () => {
    const started = Date.now();
    const outcome = await runOperatorCli(target(), ['runs', 'list', '--timeout', '1s']);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain(`the kernel at ${url} did not answer within 1s`);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('after AIRLOCK_TIMEOUT when no flag says', async () => {
    process.env.AIRLOCK_TIMEOUT = '1500ms';
    try {
      const outcome = await runOperatorCli(target(), ['decisions', 'list']);
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toContain('did not answer within 1500ms');
    } finally {
      delete process.env.AIRLOCK_TIMEOUT;
    }
  });

  it.each([['0s'], ['10'], ['']])('refuses --timeout %j as a usage error', async (timeout) => {
    const outcome = await runOperatorCli(target(), ['runs', 'list', '--timeout', timeout]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('--timeout');
  });
});
