import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../cli.ts');

/** A loopback "database" that takes connections and never says a word: a start that hangs. */
const sockets: Socket[] = [];
let connected: () => void = () => {};
const firstConnection = new Promise<void>((resolve) => {
  connected = resolve;
});
const silent: Server = createServer((socket) => {
  sockets.push(socket);
  connected();
});
await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
const port = (silent.address() as { port: number }).port;
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((closed) => silent.close(closed));
});

describe('airlock serve asked to stop while its start hangs', { timeout: 60_000 }, () => {
  it('ends within the grace after a SIGTERM, exit 1, saying why', async () => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        CLI,
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
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    // The start is waiting on the database that never answers.
    await firstConnection;
    const sentAt = performance.now();
    child.kill('SIGTERM');
    const code = await exited;
    const tookMs = performance.now() - sentAt;
    expect(code).toBe(1);
    expect(output).toContain('stop asked for while starting');
    expect(output).toContain('the start did not finish within 5000 ms of SIGTERM');
    // Not killed by the signal itself (that would be no exit code), and not hung for good.
    expect(tookMs).toBeGreaterThanOrEqual(4_900);
  });
});
