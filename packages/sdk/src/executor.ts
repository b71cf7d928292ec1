import { AirlockError, ConnectionError } from './errors.js';
import { openCable } from './executor/cable.js';
import { claimOf, claimOfNext } from './executor/claim-answer.js';
import { claimGroups } from './executor/claim-groups.js';
import { commitOutcome } from './executor/commit.js';
import { DEFAULT_BODY_LIMIT } from './executor/commit-fit.js';
import { isLastingFailure } from './executor/lasting-failure.js';
import { holdLease, untilDeadline } from './executor/lease.js';
import { tell } from './executor/listeners.js';
import { checkExecutorOptions } from './executor/options.js';
import { ranView, ToolError } from './executor/outcome.js';
import { runHandler } from './executor/run-handler.js';
import { nextTurn } from './internal/next-turn.js';
import { createOperations } from './internal/operations.js';
import type { ClaimView, TaskView } from './views.js';

export { ToolError };

import type {
  Executor,
  ExecutorOptions,
  RunClaimedOptions,
  ToolContext,
  ToolHandler,
} from './executor/types.js';

export type { Executor, ExecutorOptions, RunClaimedOptions, ToolContext, ToolHandler };

/** How long `close({abort: true})` waits for its rows' releases (each gives up after 2 s). */
const ABORT_WAIT_MS = 3000;

/** What a targeted claim answers for a row that is not this executor's to run now. */
const NOT_OURS: readonly string[] = [
  'task_not_found',
  'not_claimable_kind',
  'not_claimable',
  'run_not_running',
];

/**
 * Starts an executor: it connects to the kernel's executor cable, claims work
 * when nudged (and on connect), runs the named tool's handler with an abort
 * signal tied to the lease and the task's deadline, heartbeats while it runs,
 * and commits the result or the failure. A hook task's result is checked with
 * core's `validateHookResult` first; an invalid one is committed as a failure.
 * An executor the kernel refuses for good (a refused credential, a url whose routes answer
 * 404, claims it always refuses, a TLS failure: see isLastingFailure) ends: it stops claiming,
 * polling and reconnecting, tells onError once, and `ready` and `closed` reject with the error.
 * No answer, 408, 429 and 5xx are tried again (the cable backs off) until close().
 * @throws ValidationError `invalid_input` for options it cannot serve with (see checkExecutorOptions).
 */
export function createExecutor(options: ExecutorOptions): Executor {
  checkExecutorOptions(options);
  const operations = createOperations(options);
  const leaseMs = options.leaseMs ?? 30_000;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const concurrency = options.concurrency ?? 4;
  const toolNames = Object.keys(options.tools);
  // The kernel takes at most 256 names a claim: more tools are asked for a group at a time.
  const toolGroups = claimGroups(toolNames);
  // What onError itself throws has nobody left to tell.
  const report = (error: Error, task: TaskView | null) =>
    tell(options.onError, () => {}, error, task);
  const inFlight = new Set<Promise<void>>();
  /** The claims of the executor's own drain: `concurrency` bounds these, not rows handed in. */
  const drained = new Set<Promise<void>>();
  /** Claim requests not yet answered: close waits for each, and hands back what it brings. */
  const claiming = new Set<Promise<void>>();
  let closing = false;
  /** The failure that ended the executor for good: nothing more is claimed (see end). */
  let ended: Error | null = null;
  const closed = new AbortController();
  let draining = false;
  let again = false;
  let markReady: () => void = () => {};
  let refuseReady: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    refuseReady = reject;
  });
  let markStopped: () => void = () => {};
  let failStopped: (error: Error) => void = () => {};
  const stopped = new Promise<void>((resolve, reject) => {
    markStopped = resolve;
    failStopped = reject;
  });
  // Nobody has to await `ready` or `closed`; a failure is also reported to onError.
  ready.catch(() => {});
  stopped.catch(() => {});

  const drain = async (): Promise<void> => {
    // The kernel reads an empty name list as "any tool": an executor serving none claims nothing.
    if (toolNames.length === 0 || ended) return;
    if (draining) {
      again = true;
      return;
    }
    draining = true;
    try {
      do {
        again = false;
        let claimed = true;
        while (claimed && !closing && drained.size < concurrency) {
          claimed = false;
          for (const group of toolGroups) {
            if (closing || drained.size >= concurrency) break;
            const sentAt = performance.now();
            const request = operations.executor.claimNext
              .mutate({ tool_names: group, lease_ms: leaseMs })
              .then(claimOfNext);
            if (await whenClaimed(request, sentAt, true)) claimed = true;
          }
        }
      } while (again && !closing);
    } catch (error) {
      if (ended) return;
      if (isLastingFailure(error, cable.reachedKernel())) end(error as Error);
      else report(error as Error, null);
    } finally {
      draining = false;
    }
  };

  /** The rows this executor runs now, by `run/key`. */
  const holding = new Set<string>();

  /**
   * Keeps a running claim until it ends; a claim of the drain then looks for
   * more work (it left a slot free).
   */
  const track = <T>(work: Promise<T>, drainAfter: boolean): Promise<T> => {
    const running: Promise<void> = work.then(
      () => {},
      () => {},
    );
    inFlight.add(running);
    if (drainAfter) drained.add(running);
    void running.finally(() => {
      inFlight.delete(running);
      drained.delete(running);
      if (drainAfter) void drain();
    });
    return work;
  };

  /**
   * Runs the claim a request brings once it lands, and tracks the request until then: close
   * waits for it too, so no claim lands unseen after close resolved (runClaim hands it back).
   * Resolves with the claim's run, null when the kernel had none.
   */
  const whenClaimed = (
    request: Promise<ClaimView | null>,
    sentAt: number,
    drainAfter: boolean,
  ): Promise<{ run: Promise<TaskView | null> } | null> => {
    const landing = request.then((claim) =>
      claim ? { run: track(runClaim(claim, sentAt), drainAfter) } : null,
    );
    const pending = landing.then(
      () => {},
      () => {},
    );
    claiming.add(pending);
    void pending.finally(() => claiming.delete(pending));
    return landing;
  };

  /**
   * Runs a claimed row and commits it; resolves with the committed row, null
   * when nothing was committed. `sentAt`: when the claim's request was sent
   * (`performance.now()`), null when not known here.
   */
  const runClaim = async (claim: ClaimView, sentAt: number | null): Promise<TaskView | null> => {
    const { task } = claim;
    const address = { run_id: task.run_id, task_key: task.key, claim_id: claim.claim_id };
    const held = `${task.run_id}/${task.key}`;
    holding.add(held);
    const controller = new AbortController();
    let lost = false;
    let committing = false;
    let stopWaiting: () => void = () => {};
    // Settles once the handler is no longer waited for: its claim was lost, or the executor closed
    // with abort. A handler that ignores its signal then holds no slot and no heartbeats.
    const abandoned = new Promise<null>((resolve) => {
      stopWaiting = () => resolve(null);
    });
    const loseClaim = (error: Error) => {
      // A heartbeat that crossed the commit on the wire says lease_lost of a committed row:
      // the commit's own answer tells whether the lease was lost.
      if (committing) return;
      lease.stop();
      lost = true;
      report(error, task);
      controller.abort(error);
      stopWaiting();
    };
    const lease = holdLease({
      operations,
      address,
      leaseMs,
      claim,
      sentAt,
      onLost: loseClaim,
      // No heartbeat renewed the lease in time: the row may be another executor's by now, so
      // the handler is told to stop and nothing is committed.
      onLapsed: () =>
        loseClaim(
          new ToolError(
            'lease_lost',
            `the lease on ${held} lapsed with no heartbeat answered: the row may run elsewhere`,
          ),
        ),
    });
    const onClose = () => {
      // A commit already on the wire is not waited for: its row's lease must not be kept alive meanwhile.
      lease.stop();
      controller.abort(new ToolError('executor_closed', 'the executor closed'));
      stopWaiting();
    };
    if (closed.signal.aborted) onClose();
    else closed.signal.addEventListener('abort', onClose, { once: true });
    const deadlineIn = untilDeadline(claim, sentAt);
    const deadline =
      deadlineIn === null
        ? undefined
        : setTimeout(
            () => controller.abort(new ToolError('deadline_exceeded', 'the deadline passed')),
            deadlineIn,
          );
    try {
      // A claim that lands once closing began is handed back without running its tool (released,
      // so the row goes out again at once); so is a handed-in claim whose lease already lapsed
      // (another claim may hold the row by now: the kernel then refuses the release).
      const handBack = closing;
      const lapsed = !handBack && !lease.mayHold();
      if (lapsed) {
        report(
          new ToolError('lease_lost', `the claim on ${held} lapsed before its tool ran`),
          task,
        );
      }
      // A handler that returned before close({abort}) ran its tool: its outcome commits, not released.
      const ran =
        handBack || lapsed
          ? null
          : await Promise.race([
              runHandler({
                tools: options.tools,
                task,
                claim,
                signal: controller.signal,
                bodyLimit,
              }).then((done) => (closed.signal.aborted ? null : done)),
              abandoned,
            ]);
      if (lost) return null;
      // A tool that never started is handed back unrun; one that may have started is not (its
      // lease is shortened, and the kernel decides whether it may run again).
      if (handBack || lapsed) {
        await lease.handBack();
        return null;
      }
      if (ran === null) {
        await lease.release();
        return null;
      }
      const { outcome } = ran;
      // An outcome the kernel may refuse (and a failure commit instead) is told only as committed.
      if (options.onRan && ran.commitsAsIs) {
        tell(options.onRan, (error) => report(error, task), ranView(task, outcome));
        // Whoever answers from the row as it ran (a gateway) writes that answer before the
        // commit is built and sent.
        await nextTurn();
      }
      committing = true;
      const committed = await commitOutcome({
        operations,
        address,
        task,
        outcome,
        lease,
        leaseMs,
        signal: closed.signal,
        onUndeliverable: (error) => report(error, task),
      });
      if (committed === null) {
        await lease.release();
        return null;
      }
      tell(options.onCommitted, (error) => report(error, task), committed);
      return committed;
    } catch (error) {
      report(error as Error, task);
      return null;
    } finally {
      holding.delete(held);
      lease.stop();
      clearTimeout(deadline);
      closed.signal.removeEventListener('abort', onClose);
    }
  };

  const cable = openCable(options, operations, {
    onReady: () => {
      markReady();
      void drain();
    },
    onWork: () => void drain(),
    onUnreachable: (error) => refuseReady(error),
    onFatal: (error) => end(error),
    onListenerError: (error) => report(error, null),
  });
  const poll = setInterval(() => void drain(), options.pollMs ?? 10_000);
  (poll as { unref?: () => void }).unref?.();

  /** Claims, rows handed back and running rows, once each has ended. */
  const workEnded = () =>
    Promise.allSettled([...claiming]).then(() => Promise.allSettled([...inFlight]));

  /**
   * Ends the executor for good on a failure asking again cannot mend (see isLastingFailure):
   * every claim and poll would fail again, told to onError without end. Rows it runs still try
   * to commit; `closed` rejects once they ended.
   */
  function end(error: Error): void {
    if (ended || closing) return;
    ended = error;
    refuseReady(error);
    report(error, null);
    clearInterval(poll);
    cable.close();
    void workEnded().then(() => failStopped(error));
  }

  return {
    ready,
    closed: stopped,
    leaseMs,
    get running() {
      return inFlight.size;
    },
    holds(runId, taskKey) {
      return holding.has(`${runId}/${taskKey}`);
    },
    async take(runId, taskKey) {
      if (closing) return null;
      const sentAt = performance.now();
      const request = operations.executor.claim
        .mutate({ run_id: runId, task_key: taskKey, lease_ms: leaseMs })
        .then(claimOf);
      let claimed: { run: Promise<TaskView | null> } | null;
      try {
        claimed = await whenClaimed(request, sentAt, false);
      } catch (error) {
        if (error instanceof AirlockError && NOT_OURS.includes(error.code)) return null;
        throw error;
      }
      return claimed ? claimed.run : null;
    },
    async runClaimed(claim, claimedOptions = {}) {
      // Once closing began the claim is handed back unrun (runClaim releases it).
      return track(runClaim(claim, claimedOptions.sentAt ?? null), false);
    },
    async close(closeOptions = {}) {
      closing = true;
      refuseReady(new ConnectionError('the executor closed before its cable connected'));
      if (closeOptions.abort) closed.abort();
      clearInterval(poll);
      cable.close();
      // A claim asked for before closing may still land: it is handed back, and waited for too.
      const settled = workEnded();
      if (closeOptions.abort) {
        // Every aborted row ends within its release's wait; a commit already on the wire may not.
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          settled,
          new Promise((resolve) => {
            timer = setTimeout(resolve, ABORT_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
      } else {
        await settled;
      }
      // An executor that ended on a failure keeps `closed` rejected with it.
      if (!ended) markStopped();
    },
  };
}
