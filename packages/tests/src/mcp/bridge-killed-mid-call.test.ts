import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KernelApi } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { kernelStores } from '../support/postgres.js';

/*
 * A bridge process killed in the middle of a tool call leaves its claim to lapse. The kernel
 * cannot tell whether the tool ran, so a tool the bridge registered as anything but read-only
 * is not run again on the same approval: the row fails outcome_unknown saying why, and the run
 * goes on. A read-only tool, or one its server says is idempotent, may run again, on the next bridge.
 */
const BRIDGE = fileURLToPath(new URL('./fixtures/bridge-process.mjs', import.meta.url));

for (const store of await kernelStores()) {
  describe.skipIf(store.skip)(`a bridge killed mid call (${store.name})`, () => {
    let kernel: TestKernel;
    let dir: string;
    const children: ChildProcess[] = [];
    beforeAll(async () => {
      kernel = await startTestKernel({}, await store.location());
      dir = mkdtempSync(join(tmpdir(), 'airlock-mcp-killed-'));
    });
    // Killed here too: a test that times out never reaches its own end.
    afterEach(() => {
      for (const child of children.splice(0)) child.kill('SIGKILL');
    });
    afterAll(async () => {
      await kernel?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** A bridge process serving the hang-once server; resolves once it serves. */
    async function bridge(env: Record<string, string>): Promise<ChildProcess> {
      const child = spawn(process.execPath, [BRIDGE], {
        env: {
          ...process.env,
          ...env,
          AIRLOCK_URL: kernel.url,
          AIRLOCK_EXECUTOR_TOKEN: kernel.workspace.tokens.executor,
          AIRLOCK_TOKEN: kernel.workspace.tokens.agent,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.push(child);
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += String(chunk);
      });
      await eventually(() => stderr.includes('serving') || child.exitCode !== null, {
        timeoutMs: 30_000,
      });
      if (!stderr.includes('serving')) throw new Error(`the bridge did not start: ${stderr}`);
      return child;
    }

    const lines = (file: string) =>
      existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

    async function killMidCall(name: string, env: Record<string, string>) {
      const countFile = join(dir, `${name}.txt`);
      const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
      await agent.putProfile({ approval_mode: 'bypass' });
      const first = await bridge({ ...env, COUNT_FILE: countFile });
      const conversation = await agent.createConversation();
      const run = await agent.startTurn(conversation.id, {
        input: 'go',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'hang__append', input: {} }] }, { final: 'ok' }],
        },
      });
      // The tool acted and never answered: the bridge dies with the call in flight.
      await eventually(() => lines(countFile).length > 0, { timeoutMs: 30_000 });
      const exited = new Promise((resolve) => first.once('exit', resolve));
      first.kill('SIGKILL');
      await exited;
      await bridge({ ...env, COUNT_FILE: countFile });
      const runs = createClient({ url: kernel.url, token: kernel.workspace.tokens.member })
        .workspace(kernel.workspace.id)
        .runs.run(run.id);
      const ended = await eventually(
        async () => {
          const { state } = await runs.get();
          return state === 'running' ? null : state;
        },
        { timeoutMs: 30_000 },
      );
      expect(ended).toBe('completed');
      const [task] = await runs.tasks();
      return { task, ran: lines(countFile).length };
    }

    it('a tool not declared read-only is not run again: the row fails outcome_unknown', async () => {
      const { task, ran } = await killMidCall('write', {});
      expect(ran).toBe(1);
      expect(task).toMatchObject({
        state: 'failed',
        attempts: 1,
        error: { code: 'outcome_unknown', detail: expect.stringContaining('may have run') },
      });
    });

    it('a tool its server says is idempotent runs again on the next bridge', async () => {
      const { task, ran } = await killMidCall('idempotent', { IDEMPOTENT: '1' });
      expect(ran).toBe(2);
      expect(task).toMatchObject({ state: 'succeeded', attempts: 2 });
    });

    it('a read-only tool runs again on the next bridge', async () => {
      const { task, ran } = await killMidCall('read', { READ_ONLY: '1' });
      expect(ran).toBe(2);
      expect(task).toMatchObject({ state: 'succeeded', attempts: 2 });
    });
  });
}
