import type { Deployment } from './harness.js';
import { waitFor } from './harness.js';

/**
 * What a run-and-task path names in a drive, by the state the operation
 * needs to reach past its guards: a scripted run waiting on `t1`'s approval;
 * the same with `t1` approved (claimable), claimed, or failed and held for a
 * person; a run whose `t1` asks a question; a gateway run waiting for calls;
 * a gateway run with its call `t1` parked.
 */
export type FixtureKind =
  | 'waiting'
  | 'approved'
  | 'claimed'
  | 'held'
  | 'question'
  | 'gateway'
  | 'gateway_parked';

/** A run in a known state, and what a body needs to act on it (a claim id). */
export interface RunFixture {
  runId: string;
  taskKey: string;
  claimId: string | null;
}

async function taskState(d: Deployment, runId: string, key: string): Promise<string | null> {
  const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/${key}`);
  return task.status === 200 ? task.body.state : null;
}

async function scriptedRun(d: Deployment, kind: FixtureKind): Promise<string> {
  const call =
    kind === 'question'
      ? { name: 'ask', input: { prompt: 'When?', options: ['Now', 'Later'] } }
      : { name: 'ls' };
  const created = await d.agent.post(`${d.ws}/runs`, {
    approval_mode: 'ask',
    input: 'x',
    ...(kind === 'held' ? { on_failure: 'hold' } : {}),
    provider: { kind: 'scripted', rounds: [{ tool_calls: [call] }, { final: 'x' }] },
  });
  const runId: string = created.body.id;
  const state = kind === 'question' ? 'awaiting_input' : 'needs_approval';
  await waitFor(async () => (await taskState(d, runId, 't1')) === state);
  return runId;
}

async function gatewayRun(d: Deployment): Promise<string> {
  const created = await d.agent.post(`${d.ws}/runs`, {
    approval_mode: 'ask',
    input: 'x',
    provider: { kind: 'gateway' },
  });
  await d.airlock.kernel.idle();
  return created.body.id;
}

/**
 * Makes a fresh run of a kind on a deployment.
 * @throws Error when a step of its making is refused.
 */
export async function makeFixture(d: Deployment, kind: FixtureKind): Promise<RunFixture> {
  const fixture: RunFixture = { runId: '', taskKey: 't1', claimId: null };
  if (kind === 'gateway' || kind === 'gateway_parked') {
    fixture.runId = await gatewayRun(d);
    if (kind === 'gateway_parked') {
      const planted = await d.agent.post(`${d.ws}/runs/${fixture.runId}/calls`, {
        calls: [{ name: 'ls' }],
      });
      if (planted.status !== 201) throw new Error(`calls refused: ${JSON.stringify(planted.body)}`);
      await waitFor(async () => (await taskState(d, fixture.runId, 't1')) === 'needs_approval');
    }
    return fixture;
  }
  fixture.runId = await scriptedRun(d, kind);
  if (kind === 'waiting' || kind === 'question') return fixture;
  const task = `${d.ws}/runs/${fixture.runId}/tasks/t1`;
  const approved = await d.member.post(`${task}/approve`, {});
  if (approved.status !== 200) throw new Error(`approve refused: ${JSON.stringify(approved.body)}`);
  await d.airlock.kernel.idle();
  if (kind === 'approved') return fixture;
  const claimed = await d.executor.post(`/executor_api/v1/runs/${fixture.runId}/tasks/t1/claim`, {
    lease_ms: 3_600_000,
  });
  if (claimed.status !== 200) throw new Error(`claim refused: ${JSON.stringify(claimed.body)}`);
  fixture.claimId = claimed.body.claim_id;
  if (kind === 'claimed') return fixture;
  const failed = await d.executor.post(`/executor_api/v1/runs/${fixture.runId}/tasks/t1/commit`, {
    claim_id: fixture.claimId,
    outcome: 'failed',
    error: { code: 'x', detail: 'x' },
  });
  if (failed.status !== 200) throw new Error(`commit refused: ${JSON.stringify(failed.body)}`);
  await d.airlock.kernel.idle();
  await waitFor(async () => (await taskState(d, fixture.runId, 't1')) === 'failed');
  return fixture;
}

/** The state `t1` rests in on a fresh run of each kind; null where the run has no `t1`. */
const TASK_STATE_OF: Readonly<Record<FixtureKind, string | null>> = {
  waiting: 'needs_approval',
  approved: 'runnable',
  claimed: 'claimed',
  held: 'failed',
  question: 'awaiting_input',
  gateway: null,
  gateway_parked: 'needs_approval',
};

/** True while a run made by {@link makeFixture} is still running with `t1` as it was made. */
export async function fixtureHolds(
  d: Deployment,
  kind: FixtureKind,
  fixture: RunFixture,
): Promise<boolean> {
  const run = await d.member.get(`${d.ws}/runs/${fixture.runId}`);
  if (run.body.state !== 'running') return false;
  return (await taskState(d, fixture.runId, fixture.taskKey)) === TASK_STATE_OF[kind];
}
