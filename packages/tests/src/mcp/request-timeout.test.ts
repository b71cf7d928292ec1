import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StallingProxy, startStallingProxy } from '../support/stalling-proxy.js';
import { filesystemServer } from './servers.js';
import { gatewayArgs, gatewayEnv, gatewayFixture, runAirlockCli } from './stdio-gateway.js';

/*
 * `--timeout` of `airlock executor mcp` and `airlock gateway mcp`, as the
 * built `airlock` binary runs them. A kernel that hangs cannot be made on
 * demand, so two stand-ins: a loopback server that takes connections and
 * never answers, and a proxy in front of the real kernel that goes silent
 * mid-session.
 */
describe('airlock executor mcp / gateway mcp --timeout', { timeout: 60_000 }, () => {
  const fixture = gatewayFixture((dir) => writeFileSync(join(dir, 'src/a.txt'), 'hello'));
  let silent: Server;
  let silentUrl: string;
  /** Every connection the silent kernel took. */
  const accepted: Socket[] = [];
  const children: ChildProcess[] = [];
  let proxy: StallingProxy | undefined;

  beforeAll(async () => {
    silent = createServer((socket) => accepted.push(socket));
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
    silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await proxy?.close();
    for (const socket of accepted) socket.destroy();
    await new Promise((closed) => silent.close(closed));
  });

  const fsCommand = () => {
    const { spec } = filesystemServer(fixture.dir);
    return [spec.command, ...spec.args];
  };

  /** Runs the command to its end against the silent kernel: its exit code, stderr and time taken. */
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const started = Date.now();
    const ended = await runAirlockCli(
      args,
      { ...gatewayEnv(fixture.kernel), AIRLOCK_URL: silentUrl, ...env },
      children,
    );
    return { ...ended, elapsedMs: Date.now() - started };
  };

  it('the bridge gives up on a kernel that never answers after --timeout: exit 1 naming deadline_exceeded', async () => {
    const ended = await run([
      'executor',
      'mcp',
      '--timeout',
      '300ms',
      '--name',
      'fs',
      '--',
      ...fsCommand(),
    ]);
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain(
      `airlock mcp: deadline_exceeded: the kernel at ${silentUrl} did not answer within 300 ms`,
    );
    expect(ended.stderr).toContain('(--timeout or AIRLOCK_TIMEOUT waits longer)');
    // The cable's handshake and its check each wait 0.3 s; the default would wait 30 s for each.
    expect(ended.elapsedMs).toBeLessThan(15_000);
  });

  it('the gateway gives up the same way after AIRLOCK_TIMEOUT when no flag says', async () => {
    const ended = await run(['gateway', 'mcp', '--name', 'fs', '--', ...fsCommand()], {
      AIRLOCK_TIMEOUT: '500ms',
    });
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain(
      `airlock mcp: deadline_exceeded: the kernel at ${silentUrl} did not answer within 500 ms`,
    );
    expect(ended.elapsedMs).toBeLessThan(15_000);
  });

  it('a gateway whose kernel hangs mid-session answers the call with a JSON-RPC error naming deadline_exceeded, and stays up', async () => {
    proxy = await startStallingProxy(fixture.kernel.url);
    const transport = new StdioClientTransport({
      command: process.execPath,
      // Answered once committed, so no commit of the first call is on its way when the kernel goes silent.
      args: gatewayArgs(fixture.dir, '--timeout', '1s', '--await-commits'),
      env: { ...gatewayEnv(fixture.kernel), AIRLOCK_URL: proxy.url },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'hung-kernel', version: '1.0.0' });
    await client.connect(transport);
    try {
      const read = { name: 'fs__read_text_file', arguments: { path: 'src/a.txt' } };
      const first = (await client.callTool(read)) as CallToolResult;
      expect(first.content).toEqual([{ type: 'text', text: 'hello' }]);

      proxy.stall();
      const started = Date.now();
      const refused = await client.callTool(read).then(
        () => null,
        (error: { code?: number; message: string }) => error,
      );
      expect(refused?.code).toBe(-32603);
      expect(refused?.message).toMatch(
        new RegExp(`deadline_exceeded: the kernel at ${proxy.url} did not answer within 1000 ms`),
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      // The gateway itself still answers its client.
      await expect(client.ping()).resolves.toEqual({});
    } finally {
      await client.close();
    }
  });

  it.each([
    [['--timeout', '10'], '--timeout wants a duration such as 24h, 30m, 90s or 500ms, not "10"'],
    [['--timeout'], '--timeout needs a value'],
  ])(
    'refuses %j as a usage error (exit 2) before it starts a server or reaches the kernel',
    async (flags, message) => {
      const before = accepted.length;
      const marker = join(fixture.dir, 'server-started');
      // A server that leaves a file behind when it is started.
      const server = [
        process.execPath,
        '-e',
        `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '')`,
      ];
      for (const command of ['executor', 'gateway']) {
        const ended = await run([command, 'mcp', '--name', 'fs', ...flags, '--', ...server]);
        expect(ended.code).toBe(2);
        expect(ended.stderr.trim().split('\n')).toHaveLength(1);
        expect(ended.stderr).toContain(message);
      }
      expect(existsSync(marker)).toBe(false);
      expect(accepted.length).toBe(before);
    },
  );

  it('refuses a bad AIRLOCK_TIMEOUT naming the variable (exit 2)', async () => {
    const ended = await run(['gateway', 'mcp', '--name', 'fs', '--', 'x'], {
      AIRLOCK_TIMEOUT: '30',
    });
    expect(ended.code).toBe(2);
    expect(ended.stderr).toContain(
      'AIRLOCK_TIMEOUT wants a duration such as 24h, 30m, 90s or 500ms, not "30" (a number needs its unit: 30s? 30ms?)',
    );
  });
});
