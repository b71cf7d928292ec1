import { asKeptText } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { RunTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { StoreUnavailableError } from '../../store/store-errors.js';
import type { KernelContext } from '../context.js';
import { endRun } from '../machines/run-machine.js';
import { lockRunIfAny } from '../machines/run-state.js';

/** The code a run fails with when the store refused to record one of its steps. */
export const RUN_WRITE_REFUSED = 'run_write_refused';

/** The most characters of a refusal's own reason kept in the run's error detail. */
const REASON_LIMIT = 300;

/** Which run a step is of, and whether a run read again is still the one the step was for. */
export interface RunStep {
  runId: string;
  workspaceId: string;
  /** True when the run read again still waits on this step (its lease is still this process's). */
  stillOurs(run: RunTable): boolean;
}

/**
 * The run's error detail for a refused step: the refusal's own reason when
 * it is written for people (an Airlock error, as a store's refused text is
 * answered), never a driver's message or a stack; at most a few hundred
 * characters, kept as every store keeps text.
 */
function refusalDetail(error: unknown): string {
  const reason =
    error instanceof AirlockError
      ? `: ${asKeptText(error.detail.slice(0, REASON_LIMIT))}`
      : ' (the kernel log has the reason)';
  return `the store refused to record this run's next step${reason}; the run was ended so that it does not wait forever`;
}

/**
 * Takes a step of a run in one unit of work. When the store refuses it for
 * good (anything but {@link StoreUnavailableError}, which the clock sweep
 * takes again once the store is back), taking it again would be refused
 * again and the run would stay `running` forever: so the run is ended
 * `failed` {@link RUN_WRITE_REFUSED} in a unit of its own, while it still
 * waits on this step.
 * @throws the step's error when the store was unavailable, when the run no longer waits on the
 *   step (gone, ended, taken over), or when ending it failed too.
 */
export async function recordStep(
  ctx: KernelContext,
  step: RunStep,
  work: (tx: Tx) => Promise<void>,
): Promise<void> {
  try {
    await ctx.store.transaction(work);
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    const ended = await ctx.store.transaction(async (tx) => {
      const run = await lockRunIfAny(tx, step.workspaceId, step.runId);
      if (run?.state !== 'running' || !step.stillOurs(run)) return false;
      await endRun(tx, run, {
        state: 'failed',
        error: { code: RUN_WRITE_REFUSED, detail: refusalDetail(error) },
        principal: 'kernel',
      });
      return true;
    });
    // A run gone (pruned) or no longer waiting on this step is no refusal: the error is the caller's.
    if (!ended) throw error;
    ctx.logger.error(
      { err: error, runId: step.runId },
      'the store refused a run step; the run was ended failed',
    );
  }
}
