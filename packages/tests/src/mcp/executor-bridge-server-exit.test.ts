import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startExecutorBridge } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';

const crashOnce = fileURLToPath(new URL('./fixtures/crash-once-server.mjs', import.meta.url));

/*
 * A server that exits in the middle of a call may have acted before it did
 * (written the file, sent the mail). Sent again to a fresh process, a
 * write ran twice on one approval. Only a tool that says it is read-only
 * (the `slow` server of executor-bridge.test.ts) or idempotent is sent again.
 */
describe('executor bridge: a server that exits during a call', () => {
  let kernel: TestKernel;
  const dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-exit-'));
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs one call of `crash__append` through a bridge; the row as it settled and the runs. */
  async function callOnce(idempotent: boolean) {
    const countFile = join(dir, idempotent ? 'idempotent' : 'write');
    const bridge = await startExecutorBridge({
      url: kernel.url,
      executorToken: kernel.workspace.tokens.executor,
      servers: [
        {
          name: 'crash',
          spec: {
            command: process.execPath,
            args: [crashOnce],
            env: { COUNT_FILE: countFile, IDEMPOTENT: idempotent ? '1' : '0' },
          },
        },
      ],
    });
    try {
      const workspace = createClient({
        url: kernel.url,
        token: kernel.workspace.tokens.member,
      }).workspace(kernel.workspace.id);
      const run = await workspace.runs.create({
        approval_mode: 'bypass',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'crash__append', input: {} }] }, { final: 'done' }],
        },
      });
      await eventually(async () => (await workspace.runs.run(run.id).get()).state !== 'running');
      const [task] = await workspace.runs.run(run.id).tasks();
      return { task, runs: readFileSync(countFile, 'utf8').trim().split('\n').length };
    } finally {
      await bridge.close();
    }
  }

  it('a tool that may write is not sent again: the row fails saying it may have run', async () => {
    const { task, runs } = await callOnce(false);
    expect(runs).toBe(1);
    expect(task).toMatchObject({ state: 'failed', error: { code: 'tool_failed' } });
    expect(task?.error?.detail).toContain(
      'the server crash exited during append, which may have run before it did',
    );
  });

  it('an idempotent tool is sent again to a fresh process, once', async () => {
    const { task, runs } = await callOnce(true);
    expect(runs).toBe(2);
    expect(task).toMatchObject({ state: 'succeeded' });
    expect(JSON.stringify(task?.result)).toContain('appended by');
  });
});
