import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServerConnection } from '@airlock/mcp';
import { afterAll, describe, expect, it } from 'vitest';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/*
 * A server that never answers initialize: the connection gives up on it and
 * its process is gone before the failure is reported, so a gateway that
 * exits on that failure leaves no orphan behind.
 */
describe('McpServerConnection: a server that never starts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops the server process before reporting the failed start', async () => {
    const pidFile = join(dir, 'pid');
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stdout.write('garbage\\n'); setTimeout(() => {}, 1e9);`;
    const connection = new McpServerConnection(
      { name: 'mute', spec: { command: process.execPath, args: ['-e', script] } },
      { startTimeoutMs: 500 },
    );
    await expect(connection.listTools()).rejects.toThrow(/timed out/i);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(false);
    await connection.close();
  }, 15_000);
});

/*
 * A result larger than one stdio message makes the SDK's transport close the
 * connection itself: the tool ran, so the call is not sent again, even for a
 * tool whose call a server's own exit would send again once.
 */
describe('McpServerConnection: a result too large for a stdio message', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-huge-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails the call with what happened, and runs the tool once', async () => {
    const countFile = join(dir, 'calls');
    const connection = new McpServerConnection({
      name: 'huge',
      spec: {
        command: process.execPath,
        args: [new URL('./fixtures/huge-result-server.mjs', import.meta.url).pathname],
        env: { COUNT_FILE: countFile, RESULT_BYTES: String(11 * 1024 * 1024) },
      },
    });
    try {
      await expect(
        connection.callTool('dump', {}, new AbortController().signal, { resendAfterExit: true }),
      ).rejects.toThrow(/is not sent again/);
      expect(readFileSync(countFile, 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      await connection.close();
    }
  }, 30_000);
});
