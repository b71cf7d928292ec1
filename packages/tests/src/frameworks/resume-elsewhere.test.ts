import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appProcess, PROCESSES_MS } from './spawn-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A parked call's decision read in one process and the framework's run going
 * on in another: the process that reads the decision (`resume`) takes no
 * grant, so the process that runs the tool takes it, and the call runs there,
 * once. (`resume` took the single-use grant, the other process's check was
 * refused as already granted, and the row ended outcome_unknown, "may have
 * run", though it never ran.) Two processes going on from the same decided
 * state race for one grant: exactly one runs the call.
 */

let k: FrameworkKernel | undefined;
let dir: string | undefined;
afterEach(async () => {
  await k?.close();
  k = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Parks the framework's send_email call in a process of its own, and a member approves it. */
async function parkedAndApproved(framework: string): Promise<{ stateFile: string; runId: string }> {
  k = await startFrameworkKernel();
  dir = mkdtempSync(join(tmpdir(), 'airlock-resume-elsewhere-'));
  const stateFile = join(dir, 'state');
  const parked = await appProcess(k, { framework, phase: 'park', stateFile });
  expect(parked.ran).toEqual([]);
  const approval = await k.parked('send_email');
  await approval.approve();
  return { stateFile, runId: approval.task.run_id };
}

describe.each(['ai-sdk', 'openai-agents'])(
  '%s: resume in one process, the run in another',
  (framework) => {
    it(
      'runs the approved call once, in the process that runs the framework',
      async () => {
        const { stateFile, runId } = await parkedAndApproved(framework);
        const decided = await appProcess(k as FrameworkKernel, {
          framework,
          phase: 'decide',
          stateFile,
        });
        expect(decided.ran).toEqual([]);

        const ran = await appProcess(k as FrameworkKernel, { framework, phase: 'run', stateFile });
        expect(ran).toMatchObject({ ran: ['send_email'], text: 'sent after restart' });
        const rows = await (k as FrameworkKernel).tasks(runId);
        expect(rows.filter((row) => row.tool_name === 'send_email')).toMatchObject([
          { state: 'succeeded' },
        ]);
      },
      PROCESSES_MS,
    );
  },
);

describe.each(['ai-sdk', 'openai-agents', 'langgraph'])(
  '%s: two processes go on from the same decided state',
  (framework) => {
    it(
      'exactly one of them runs the approved call',
      async () => {
        const { stateFile, runId } = await parkedAndApproved(framework);
        if (framework !== 'langgraph') {
          await appProcess(k as FrameworkKernel, { framework, phase: 'decide', stateFile });
        }
        const both = await Promise.all([
          appProcess(k as FrameworkKernel, { framework, phase: 'run', stateFile }),
          appProcess(k as FrameworkKernel, { framework, phase: 'run', stateFile }),
        ]);
        expect(both.flatMap((life) => life.ran)).toEqual(['send_email']);
        const rows = await (k as FrameworkKernel).tasks(runId);
        expect(rows.filter((row) => row.tool_name === 'send_email')).toMatchObject([
          { state: 'succeeded' },
        ]);
      },
      PROCESSES_MS,
    );
  },
);
