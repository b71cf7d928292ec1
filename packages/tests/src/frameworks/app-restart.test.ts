import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appProcess, PROCESSES_MS } from './spawn-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A parked call survives the application's process ending: each framework's
 * application runs in a Node.js process of its own until Airlock parks its
 * call and exits with the framework's state saved; the kernel restarts; a
 * member approves through the SDK; a fresh process reads the saved state and
 * the call runs there, once.
 */

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

    it(
      'parks in one process; a member approves; the call runs once in the next process',
      async () => {
        k = await startFrameworkKernel();
        dir = mkdtempSync(join(tmpdir(), 'airlock-app-restart-'));
        const stateFile = join(dir, 'state');
        const parked = await appProcess(k, { framework, phase: 'park', stateFile });
        expect(parked.ran).toEqual([]);

        await k.kernel.restart();
        const approval = await k.parked('send_email');
        await approval.approve();

        const resumed = await appProcess(k, { framework, phase: 'resume', stateFile });
        expect(resumed.pid).not.toBe(parked.pid);
        expect(resumed).toMatchObject({ ran: ['send_email'], text: 'sent after restart' });
        const rows = await k.tasks(approval.task.run_id);
        expect(rows.filter((row) => row.tool_name === 'send_email')).toMatchObject([
          { state: 'succeeded' },
        ]);
      },
      PROCESSES_MS,
    );
  },
);
