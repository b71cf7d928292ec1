import pino from 'pino';
import { defaultProviders } from '../../providers/registry.js';
import { ADVISORY_LOCK_KEYS, withAdvisoryLock } from '../../store/advisory-lock.js';
import { rowsToFence, runsToFence } from '../../store/fence-rows.js';
import type { Store } from '../../store/store.js';
import { liveIdentity, recordedIdentity, recordIdentity } from '../../store/store-identity.js';
import type { KernelContext } from '../context.js';
import { DEFAULT_PARK_TTL_MS } from '../kernel.js';
import { moveTask } from '../machines/move-task.js';
import { lockRunIfAny } from '../machines/run-state.js';
import { OUTCOME_UNKNOWN } from '../machines/task-machine.js';
import { newSettleQueue } from './policy-settle-queue.js';

/** The failure a fenced row records: the kernel cannot know whether the call ran. */
export const OUTCOME_UNKNOWN_DETAIL =
  'the store was restored from a backup taken while this call was granted or claimed: ' +
  'an executor may have run it after the backup, so its outcome is unknown. ' +
  'Retry it to send it through approval again (granted, it runs again), or abandon or stop the run';

/** One row a fence moved. */
export interface FencedRow {
  workspace_id: string;
  run_id: string;
  key: string;
  kind: string;
  tool_name: string;
  /** Where the row was in the backup: granted and waiting for an executor, or claimed by one. */
  was: 'runnable' | 'claimed';
}

const PAGE = 200;

/**
 * Fences a store restored from a backup, before any kernel serves it: every
 * tool or hook row of a running run that was granted (`runnable`) or claimed
 * when the backup was taken fails `outcome_unknown` and holds its run
 * (`failure_hold`), whatever its on_failure, so no executor claims it again
 * until a person retries it (it crosses the approval stage again) or abandons
 * or stops the run.
 * Each run moves in a transaction of its own under its lock; a row moved
 * meanwhile is passed by, so fencing twice fences nothing twice.
 * Returns the rows it fenced, run by run.
 */
export async function fenceRestoredStore(store: Store): Promise<FencedRow[]> {
  const ctx = offlineContext(store);
  const fenced: FencedRow[] = [];
  let after: string | null = null;
  for (;;) {
    const runs = await runsToFence(store, { after, limit: PAGE });
    for (const { workspace_id, run_id } of runs) {
      const moved = await store.transaction(async (tx) => {
        const run = await lockRunIfAny(tx, workspace_id, run_id);
        if (!run) return [];
        const rows = await rowsToFence(tx, run_id);
        const done: FencedRow[] = [];
        for (const row of rows) {
          const detail = OUTCOME_UNKNOWN_DETAIL;
          const fencedRow = await moveTask(
            tx,
            {
              verb: 'fence',
              run,
              key: row.key,
              to: 'failed',
              from: row.state as 'runnable' | 'claimed',
              set: {
                error_code: OUTCOME_UNKNOWN,
                error_detail: detail,
                // A restore needs a person's decision, as an expired question does.
                on_failure: 'hold',
                claim_id: null,
                lease_until: null,
                deadline_at: null,
                // Who granted it stays on the row for the person deciding it; the event names the kernel.
              },
              event: { type: 'task.failed', data: { error: { code: OUTCOME_UNKNOWN, detail } } },
              principal: 'kernel',
              settle: { ctx, run },
            },
            { quiet: true },
          );
          if (!fencedRow) continue;
          done.push({
            workspace_id,
            run_id,
            key: row.key,
            kind: row.kind,
            tool_name: row.tool_name,
            was: row.state as 'runnable' | 'claimed',
          });
        }
        return done;
      });
      fenced.push(...moved);
    }
    if (runs.length < PAGE) return fenced;
    after = runs[runs.length - 1]!.run_id;
  }
}

/**
 * Fences the store when it is a copy of the database it was last served
 * from (a `pg_restore` into a new database that nobody fenced with
 * `airlock fence`), then records the database it is now, so a kernel's first
 * start on a restored PostgreSQL store never hands out a call that may have
 * run after the backup. Kernels starting together take turns (an advisory
 * lock): one fences, the others find the database recorded. A store that
 * records none (a new one, or one from before this check) is recorded and
 * not fenced; on SQLite nothing happens (`airlock restore` fences).
 * Returns the rows it fenced, or null when the store is no copy.
 */
export async function fenceIfCopied(store: Store): Promise<FencedRow[] | null> {
  const live = await liveIdentity(store);
  if (live === null) return null;
  return withAdvisoryLock(store, ADVISORY_LOCK_KEYS.restoreFence, async () => {
    const recorded = await recordedIdentity(store);
    if (recorded === live) return null;
    const fenced = recorded === undefined ? null : await fenceRestoredStore(store);
    await recordIdentity(store, live);
    return fenced;
  });
}

/** Fences a store restored by hand (`airlock fence`), and records it as fenced where it is. */
export async function fenceByHand(store: Store): Promise<FencedRow[]> {
  const fenced = await fenceRestoredStore(store);
  const live = await liveIdentity(store);
  if (live !== null) await recordIdentity(store, live);
  return fenced;
}

/**
 * The context of a command that moves rows while no kernel serves the store:
 * it drives no run itself; a run whose next step became due is resumed by the
 * clocks sweep of the next kernel that starts.
 */
function offlineContext(store: Store): KernelContext {
  return {
    store,
    logger: pino({ level: 'silent' }),
    parkTtlMs: DEFAULT_PARK_TTL_MS,
    defaultLeaseMs: 30_000,
    maxLeaseMs: 3_600_000,
    instanceId: 'restore-fence',
    providers: defaultProviders(),
    metrics: null,
    tracing: null,
    settles: newSettleQueue(),
    scheduleDrive: () => {},
  };
}
