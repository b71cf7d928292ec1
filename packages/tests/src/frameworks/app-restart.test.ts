import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A parked call survives the application's process ending: each framework's
 * application runs in a Node.js process of its own until Airlock parks its
 * call and exits with the framework's state saved; the kernel restarts; a
 * member approves through the SDK; a fresh process reads the saved state and
 * the call runs there, once.
 */

const run = promisify(execFile);
const APP = join(import.meta.dirname, 'app-process.ts');

async function appProcess(
  k: FrameworkKernel,
  framework: string,
  phase: 'park' | 'resume',
  stateFile: string,
): Promise<{ pid: number; ran: string[]; text?: string }> {
  const { stdout } = await run(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', APP, framework, phase, stateFile],
    {
      env: {
        ...process.env,
        AIRLOCK_URL: k.connection.url,
        AIRLOCK_TOKEN: k.connection.token,
        SESSION_ID: `restart-${framework}`,
      },
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

describe.each(['ai-sdk', 'openai-agents', 'langgraph'])(
  'a restart of the %s application between the park and the approval',
  (framework) => {
    let k: FrameworkKernel | undefined;
    let dir: string | undefined;
    afterEach(async () => {
      await k?.close();
      k = undefined;
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('parks in one process; a member approves; the call runs once in the next process', async () => {
      k = await startFrameworkKernel();
      dir = mkdtempSync(join(tmpdir(), 'airlock-app-restart-'));
      const stateFile = join(dir, 'state');
      const parked = await appProcess(k, framework, 'park', stateFile);
      expect(parked.ran).toEqual([]);

      await k.kernel.restart();
      const approval = await k.parked('send_email');
      await approval.approve();

      const resumed = await appProcess(k, framework, 'resume', stateFile);
      expect(resumed.pid).not.toBe(parked.pid);
      expect(resumed).toMatchObject({ ran: ['send_email'], text: 'sent after restart' });
      const rows = await k.tasks(approval.task.run_id);
      expect(rows.filter((row) => row.tool_name === 'send_email')).toMatchObject([
        { state: 'succeeded' },
      ]);
    });
  },
);
