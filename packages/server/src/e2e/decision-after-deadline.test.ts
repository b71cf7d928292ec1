import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/**
 * Past its deadline a park takes no decision, even in the moments before the
 * clocks' sweep marks it expired (here the sweep is a minute away).
 */

const all = await backends();
const sqlite = all.find((backend) => backend.name === 'sqlite' && backend.skip === null);

const parkTwo = {
  approval_mode: 'ask',
  input: 'x',
  provider: {
    kind: 'scripted',
    rounds: [{ tool_calls: [{ name: 'deploy' }, { name: 'release' }] }, { final: 'f' }],
  },
};

describe.skipIf(!sqlite)('a decision after the deadline', () => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('is refused with task_not_waiting on approve and deny, and changes nothing', async () => {
    d = await deploy(sqlite!, { parkTtlMs: 300, sweepIntervalMs: 60_000 });
    const run = (await d.agent.post(`${d.ws}/runs`, parkTwo)).body;
    const task = (key: string) => `${d.ws}/runs/${run.id}/tasks/${key}`;
    await expect
      .poll(async () => (await d.member.get(task('t2'))).body.state)
      .toBe('needs_approval');
    await new Promise((resolve) => setTimeout(resolve, 400));

    const approved = await d.member.post(`${task('t1')}/approve`, {});
    expect([approved.status, approved.body.error.code]).toEqual([409, 'task_not_waiting']);
    expect(approved.body.error.detail).toContain('its decision expired');
    const denied = await d.member.post(`${task('t2')}/deny`, { reason: 'late' });
    expect([denied.status, denied.body.error.code]).toEqual([409, 'task_not_waiting']);
    for (const key of ['t1', 't2']) {
      expect((await d.member.get(task(key))).body).toMatchObject({
        state: 'needs_approval',
        decided_by: null,
      });
    }
  });
});
