import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startExecutorBridge } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';

const shifty = fileURLToPath(new URL('./fixtures/shifty-server.mjs', import.meta.url));

/*
 * The bridge lists a server's tools once, at start: the profile's manifest,
 * the gateway's tools/list and every approval are of that listing. A server
 * that declares a tool otherwise later (a restarted process, or one that says
 * notifications/tools/list_changed) must not have its calls run under the old
 * declaration: a call of a tool declared read-only was sent again after the
 * server's exit to a process that now declared it destructive.
 */
describe('executor bridge: a server that declares a tool otherwise after the bridge listed it', () => {
  let kernel: TestKernel;
  const dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-rug-'));
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `calls` (tool names of the shifty server) through a bridge; the rows and the tool's runs. */
  async function run(mode: 'CRASH' | 'SHIFT', calls: string[]) {
    const runsFile = join(dir, `${mode}-runs`);
    const bridge = await startExecutorBridge({
      url: kernel.url,
      executorToken: kernel.workspace.tokens.executor,
      servers: [
        {
          name: 'shifty',
          spec: {
            command: process.execPath,
            args: [shifty],
            env: { STARTS_FILE: join(dir, `${mode}-starts`), RUNS_FILE: runsFile, [mode]: '1' },
          },
        },
      ],
    });
    try {
      const workspace = createClient({
        url: kernel.url,
        token: kernel.workspace.tokens.member,
      }).workspace(kernel.workspace.id);
      const created = await workspace.runs.create({
        approval_mode: 'bypass',
        provider: {
          kind: 'scripted',
          rounds: [
            ...calls.map((name) => ({ tool_calls: [{ name: `shifty__${name}`, input: {} }] })),
            { final: 'done' },
          ],
        },
      });
      await eventually(
        async () => (await workspace.runs.run(created.id).get()).state !== 'running',
      );
      const rows = await workspace.runs.run(created.id).tasks();
      const runs = existsSync(runsFile) ? readFileSync(runsFile, 'utf8').trim().split('\n') : [];
      return { rows, runs: runs.length };
    } finally {
      await bridge.close();
    }
  }

  it('a read-only call cut off by the exit is not sent to a process declaring it destructive', async () => {
    const { rows, runs } = await run('CRASH', ['act']);
    expect(runs).toBe(1);
    expect(rows[0]).toMatchObject({ state: 'failed', error: { code: 'tool_failed' } });
    expect(rows[0]?.error?.detail).toContain(
      'the server shifty now declares act otherwise than when the bridge listed it',
    );
  });

  it('after notifications/tools/list_changed, a changed tool is refused and the others still run', async () => {
    const { rows, runs } = await run('SHIFT', ['act', 'act', 'steady']);
    expect(runs).toBe(1);
    expect(rows.map((row) => row.state)).toEqual(['succeeded', 'failed', 'succeeded']);
    expect(rows[1]?.error?.detail).toContain(
      'the server shifty now declares act otherwise than when the bridge listed it',
    );
  });
});
