import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

const RULES = [
  { tool: 'deny_me', verdict: 'deny', reason: 'never this' },
  { tool: 'allow_me', verdict: 'allow' },
  { tool: 'ask_me', verdict: 'ask' },
];
const CALLS = ['deny_me', 'allow_me', 'ask_me', 'unmatched'];

/** The spec's modes table for a model row: what each kind of match does under each mode. */
const TABLE = {
  bypass: ['failed', 'runnable', 'runnable', 'runnable'],
  ask: ['failed', 'runnable', 'needs_approval', 'needs_approval'],
  rules: ['failed', 'runnable', 'needs_approval', 'failed'],
} as const;

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`the modes table end to end (${backend.name})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend);
    });
    afterAll(async () => {
      await d?.close();
    });

    for (const [mode, expected] of Object.entries(TABLE)) {
      it(`${mode}: deny, allow, ask, unmatched`, async () => {
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: mode,
          approval_rules: RULES,
          input: 'x',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: CALLS.map((name) => ({ name })) }, { final: 'f' }],
          },
        });
        expect(created.status).toBe(201);
        const tasks = (await d.member.get(`${d.ws}/runs/${created.body.id}/tasks`)).body.tasks;
        expect(tasks.map((t: { state: string }) => t.state)).toEqual(expected);
        expect(tasks[0].error).toEqual({ code: 'approval_denied', detail: 'never this' });
        if (mode === 'rules') {
          expect(tasks[3].error).toEqual({
            code: 'approval_denied',
            detail: 'no approval rule allows unmatched',
          });
        }
        const grantedBy = tasks[1].decision.granted_by;
        expect(grantedBy).toBe(mode === 'bypass' ? 'mode' : 'rule');
      });
    }
  });
}
