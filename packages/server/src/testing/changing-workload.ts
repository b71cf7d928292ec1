import { client, waitFor } from './harness.js';
import type { WorkspaceTokens } from './workspace-tokens.js';

/** A kernel to drive: its address, workspace and tokens. */
export interface WorkloadTarget {
  url: string;
  workspaceId: string;
  tokens: WorkspaceTokens;
}

/** A run whose one call parks for a person, then ends. */
export const PARKING_RUN = {
  approval_mode: 'ask',
  input: 'durability workload',
  provider: {
    kind: 'scripted',
    rounds: [{ tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] }, { final: 'done' }],
  },
};

/**
 * One sequence of changing requests over HTTP: a run whose call parks, a
 * person's approve, an executor's claim and commit of the granted call.
 * Resolves with the number of answers that reported a change.
 * @throws Error when a request that must change something does not.
 */
export async function parkApproveCommit(target: WorkloadTarget): Promise<number> {
  const ws = `/api/v1/workspaces/${target.workspaceId}`;
  const agent = client(target.url, target.tokens.agent);
  const member = client(target.url, target.tokens.member);
  const executor = client(target.url, target.tokens.executor);
  const run = await agent.post(`${ws}/runs`, PARKING_RUN);
  if (run.status !== 201 && run.status !== 200) throw new Error(`runs.create: ${run.status}`);
  const key = run.body.attention[0]?.blocked_task_keys[0] as string;
  const approved = await member.post(`${ws}/runs/${run.body.id}/tasks/${key}/approve`);
  if (approved.status !== 200) throw new Error(`approve: ${approved.status}`);
  const task = `/executor_api/v1/runs/${run.body.id}/tasks/${key}`;
  const claim = await waitFor(
    async () => {
      const answer = await executor.post(`${task}/claim`);
      return answer.status === 200 ? answer : null;
    },
    { what: 'the approved call to be claimable' },
  );
  const committed = await executor.post(`${task}/commit`, {
    claim_id: claim.body.claim_id,
    outcome: 'succeeded',
    result: 'deployed',
  });
  if (committed.status !== 200) throw new Error(`commit: ${committed.status}`);
  return 4;
}

/** Runs `sequences` park-approve-commit sequences, `concurrency` at a time; the changes reported. */
export async function changingWorkload(
  target: WorkloadTarget,
  options: { sequences: number; concurrency: number },
): Promise<number> {
  let left = options.sequences;
  let changes = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (left > 0) {
        left -= 1;
        const reported = await parkApproveCommit(target);
        changes += reported;
      }
    }),
  );
  return changes;
}
