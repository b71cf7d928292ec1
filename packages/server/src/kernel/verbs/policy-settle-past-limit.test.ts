import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addMember,
  type Deployment,
  deploy,
  type MemberOf,
  runOfCalls,
  waitFor,
} from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { POLICY_SETTLE_LIMIT } from './policy-settle.js';

const all = await backends();

type Event = { type: string };

/*
 * A put approves the first POLICY_SETTLE_LIMIT calls its policy met before it answers; the
 * calls past them used to wait for an approval nobody could give (each allowed member had given
 * theirs) and expired at their deadline. The kernel's sweep approves them now, each once.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `calls a policy put meets past the put's own limit (${backend.name})`,
    () => {
      let d: Deployment;
      let ana: MemberOf;
      let bo: MemberOf;
      beforeAll(async () => {
        d = await deploy(backend);
        [ana, bo] = [await addMember(d, 'Ana'), await addMember(d, 'Bo')];
      });
      afterAll(async () => {
        await d?.close();
      });

      const put = (required: number) =>
        d.member.put(`${d.ws}/approval_policy`, {
          policy: { rules: [{ tool: 'wipe', approvers: [ana.id, bo.id], required }] },
        });

      it('are approved by the sweep after the put answers, each once', async () => {
        expect((await put(2)).status).toBe(200);
        const runs: string[] = [];
        // 64 calls a round at most: 8 runs hold 512 waiting calls, 12 past the limit.
        for (let run = 0; run < 8; run += 1) {
          runs.push(
            await runOfCalls(d, { mode: 'ask', tool: 'wipe', count: 64, state: 'needs_approval' }),
          );
        }
        const rows: string[] = [];
        for (const runId of runs) {
          const { tasks } = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body;
          for (const task of tasks as { key: string }[]) {
            rows.push(`${d.ws}/runs/${runId}/tasks/${task.key}`);
          }
        }
        expect(rows.length).toBeGreaterThan(POLICY_SETTLE_LIMIT);
        for (let at = 0; at < rows.length; at += 16) {
          const answers = await Promise.all(
            rows.slice(at, at + 16).map((row) => ana.client.post(`${row}/approve`, {})),
          );
          for (const answer of answers) expect(answer.body.approvals?.received).toHaveLength(1);
        }

        const lowered = await put(1);
        expect(lowered.status).toBe(200);
        expect(lowered.body.approved_calls).toHaveLength(POLICY_SETTLE_LIMIT);
        const waiting = async () => {
          let left = 0;
          for (const runId of runs) {
            const { tasks } = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body;
            left += (tasks as { state: string }[]).filter(
              (t) => t.state === 'needs_approval',
            ).length;
          }
          return left;
        };
        await waitFor(async () => (await waiting()) === 0, {
          timeoutMs: 60_000,
          what: 'every met call past the limit to be approved',
        });
        for (const runId of runs) {
          const { events } = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`)).body;
          const approved = (events as Event[]).filter((event) => event.type === 'task.approved');
          expect(approved).toHaveLength(64);
        }
      }, 300_000);
    },
  );
}
