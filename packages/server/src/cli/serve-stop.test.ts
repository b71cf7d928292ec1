import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';

/** A loopback "database" that takes connections and never says a word: a start that hangs. */
const sockets: Socket[] = [];
const waiting: (() => void)[] = [];
const silent: Server = createServer((socket) => {
  sockets.push(socket);
  for (const wake of waiting.splice(0)) wake();
});
await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
const port = (silent.address() as { port: number }).port;
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((closed) => silent.close(closed));
});

/** Starts `airlock serve` on the silent database; resolves once its start is waiting on it. */
async function hangingServe() {
  const connected = new Promise<void>((resolve) => waiting.push(resolve));
  const child = spawn(
    process.execPath,
    [
      ...CLI_NODE_ARGS,
      'serve',
      '--port',
      '0',
      '--no-demo',
      '--database-url',
      `postgres://airlock:airlock@127.0.0.1:${port}/airlock`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATABASE_URL: '' } },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    // 'close', not 'exit': at 'exit' the pipes may still hold its last lines, which the test reads.
    child.once('close', (code, signal) => done({ code, signal })),
  );
  await connected;
  return { child, exited, output: () => output };
}

describe('airlock serve asked to stop while its start hangs', { timeout: 60_000 }, () => {
  it('ends within the grace after a SIGTERM, exit 1, saying why', async () => {
    const serving = await hangingServe();
    const sentAt = performance.now();
    serving.child.kill('SIGTERM');
    const { code } = await serving.exited;
    const tookMs = performance.now() - sentAt;
    expect(code).toBe(1);
    expect(serving.output()).toContain('stop asked for while starting');
    expect(serving.output()).toContain('the start did not finish within 5000 ms of SIGTERM');
    // Not killed by the signal itself (that would be no exit code), and not hung for good.
    expect(tookMs).toBeGreaterThanOrEqual(4_900);
  });

  it('ends at once on a second signal', async () => {
    const serving = await hangingServe();
    serving.child.kill('SIGTERM');
    // The first is heard (and logged) before the second is sent.
    await eventuallyContains(serving.output, 'stop asked for while starting');
    serving.child.kill('SIGINT');
    expect(await serving.exited).toEqual({ code: null, signal: 'SIGINT' });
  });
});

/** Waits (up to 20 s) until `output()` contains `text`. */
async function eventuallyContains(output: () => string, text: string): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    if (output().includes(text)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no "${text}" in: ${output()}`);
}
