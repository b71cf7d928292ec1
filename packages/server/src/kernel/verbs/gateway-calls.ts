import { AirlockError } from '../../errors.js';
import type { ProposedCall } from '../../providers/types.js';
import type { Principal } from '../../store/accounts.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { preciseNow } from '../../tracing/call-tracing.js';
import type { KernelContext } from '../context.js';
import { runBusyDetail } from '../hooks/run-busy.js';
import { readCurrentRound } from '../loop/history.js';
import { applyRound, plantCalls } from '../loop/run-loop.js';
import { providerKind } from '../machines/run-machine.js';
import { drivenByClient, lockRun, readRun } from '../machines/run-state.js';
import type { TaskView } from '../views.js';
import { cancelTask } from './decisions.js';
import { type Claim, claimPlanted, traceClaim } from './executor.js';

/** What a gateway client sends: a round of calls, or its final answer. */
export type GatewaySubmission =
  | { calls: ProposedCall[]; final?: undefined }
  | { final: string; calls?: undefined };

/** A gateway run is one whose provider is external (its rounds come from a client). */
function checkGatewayRun(ctx: KernelContext, principal: Principal, run: RunTable): void {
  // Another application's run is not there, whatever kind of run it is.
  if (principal.kind === 'agent' && run.agent_application_id !== principal.agent_application_id) {
    throw new AirlockError('run_not_found', `no run ${run.id} in this workspace`);
  }
  if (!drivenByClient(ctx, run)) {
    throw new AirlockError(
      'run_not_gateway',
      `run ${run.id} gets its rounds from ${providerKind(run)}`,
    );
  }
  if (run.state !== 'running') {
    throw new AirlockError('run_not_running', `run ${run.id} is ${run.state}`);
  }
}

/**
 * Claims the granted rows of a round for the client that runs them itself,
 * in the round's own transaction: no other executor can take them between
 * the grant and the claim, and the client saves a round trip per call.
 */
async function claimGranted(
  ctx: KernelContext,
  tx: Tx,
  principal: Principal,
  run: RunTable,
  tasks: TaskTable[],
  leaseMs: number | undefined,
): Promise<TimedClaim[]> {
  const claims: TimedClaim[] = [];
  for (const task of tasks) {
    const startedAt = ctx.tracing ? preciseNow() : 0;
    const claim = await claimPlanted(ctx, tx, principal, run, task, leaseMs);
    if (claim) claims.push({ claim, startedAt });
  }
  return claims;
}

/** A claim made in a round, with when it started (for its span in the call's trace). */
interface TimedClaim {
  claim: Claim;
  startedAt: number;
}

/** What a round of a gateway client records: its run, the rows planted, and the claims it asked for. */
export interface GatewayRound {
  run: RunTable;
  tasks: TaskTable[];
  claims: Claim[];
}

/**
 * Records a gateway client's round on its run, through the same approval
 * stage as any model row: calls open a new round when the run waits for the
 * model, or join the round still open; a final answer ends the run (through
 * its stop hook, if it declares one). Returns the run and the rows planted
 * (a row claimed here as planted; its claim holds it as claimed). With `claim`,
 * the granted rows are claimed for the client, which runs them itself.
 * @throws AirlockError run_not_found, run_not_gateway, run_not_running,
 *   run_busy (the run waits on a hook or a final answer; the detail says which).
 */
export async function submitGatewayRound(
  ctx: KernelContext,
  principal: Principal,
  runId: string,
  submission: GatewaySubmission,
  options: { claim?: { leaseMs?: number | undefined } | undefined } = {},
): Promise<GatewayRound> {
  const round = await ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, principal.workspace_id, runId);
    const claimFor = async (tasks: TaskTable[]): Promise<TimedClaim[]> =>
      options.claim ? claimGranted(ctx, tx, principal, run, tasks, options.claim.leaseMs) : [];
    checkGatewayRun(ctx, principal, run);
    if (run.pending_answer !== null || run.phase === 'hook') {
      throw new AirlockError('run_busy', await runBusyDetail(tx, run));
    }
    if (run.phase === 'tools') {
      if (submission.calls === undefined) {
        throw new AirlockError('run_busy', `run ${run.id} still has calls of round ${run.round}`);
      }
      // A parked call must not hold back the client's other calls of the same round: they join it.
      const tasks = await plantCalls(ctx, tx, run, submission.calls);
      return { run, tasks, claims: await claimFor(tasks) };
    }
    const fed = await readCurrentRound(tx, run);
    const tasks = await applyRound(
      ctx,
      tx,
      run,
      fed,
      submission.calls === undefined
        ? { type: 'final', content: submission.final }
        : { type: 'tool_calls', calls: submission.calls },
    );
    return { run, tasks, claims: await claimFor(tasks) };
  });
  // Traced once committed, as an executor's own claim is.
  for (const { claim, startedAt } of round.claims) traceClaim(ctx, principal, claim, startedAt);
  return { ...round, claims: round.claims.map(({ claim }) => claim) };
}

/**
 * Cancels a gateway client's call that has not started (the client sent
 * `notifications/cancelled`): a parked row stops waiting for a person.
 * @throws AirlockError run_not_found, run_not_gateway, run_not_running,
 *   task_not_found, task_not_waiting (the call already runs or has settled).
 */
export async function cancelGatewayCall(
  ctx: KernelContext,
  principal: Principal,
  runId: string,
  taskKey: string,
  reason?: string | undefined,
): Promise<TaskView> {
  checkGatewayRun(ctx, principal, await readRun(ctx.store, principal.workspace_id, runId));
  return cancelTask(
    ctx,
    principal,
    { workspaceId: principal.workspace_id, runId, taskKey },
    reason,
  );
}
