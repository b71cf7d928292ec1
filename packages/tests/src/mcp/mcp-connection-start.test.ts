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
