import { describe, expect, it } from 'vitest';
import { eventually, scriptedRun } from '../support/kernel.js';
import { useMemberKernel } from '../support/member-kernel.js';

/** The SDK's audit reads the trail newest first and pages back with `before`, as the API does. */
describe('workspace.audit, newest first', () => {
  const file = useMemberKernel();

  it('starts at the latest decision and pages back, meeting the oldest-first trail', async () => {
    const ws = file.workspace();
    for (const command of ['ls', 'pwd', 'id']) {
      const run = await ws.runs.create(
        scriptedRun('ask', [
          { tool_calls: [{ name: 'bash', input: { command } }] },
          { final: 'ok' },
        ]),
      );
      const parked = await eventually(async () => ws.decisions.get(run.id, 't1'));
      if (!parked?.isApproval()) throw new Error('expected a park');
      await parked.deny({ reason: `not ${command}` });
    }
    const oldestFirst = await ws.audit();
    expect(oldestFirst.length).toBeGreaterThanOrEqual(6);
    const newestFirst: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await ws.audit({ order: 'newest', limit: 2, ...(before ? { before } : {}) });
      if (page.length === 0) break;
      newestFirst.push(...page.map((record) => record.seq));
      before = page.at(-1)!.seq;
    }
    expect(newestFirst).toEqual(oldestFirst.map((record) => record.seq).reverse());
  });
});
