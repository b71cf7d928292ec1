import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/**
 * The retention repository's record of its sweeps (see
 * retention-sweeps-migration.ts): per workspace and kind of events, how far
 * the log was read, and the runs whose events were kept while they lived.
 */

/** The two kinds of events retention sweeps, each by its own window. */
export type SweepKind = 'events' | 'audit';

/** A run a sweep kept events of: its first kept event. */
export interface HeldRun {
  seq: number;
  createdAt: number;
}

/** Where a sweep stands: every event of its kind up to `through` is gone, but for the held runs'. */
export interface StoredSweep {
  through: number;
  held: Map<string, HeldRun>;
}

/** A workspace's sweep of a kind, or undefined when none was recorded (or it was forgotten). */
export async function readSweep(
  reader: Reader,
  workspaceId: string,
  kind: SweepKind,
): Promise<StoredSweep | undefined> {
  const db = reader[SQL].db;
  const row = await db
    .selectFrom('retention_sweeps')
    .select('through')
    .where('workspace_id', '=', workspaceId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  if (!row) return undefined;
  const held = await db
    .selectFrom('retention_held')
    .select(['run_id', 'seq', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('kind', '=', kind)
    .execute();
  return {
    through: Number(row.through),
    held: new Map(
      held.map((run) => [run.run_id, { seq: Number(run.seq), createdAt: Number(run.created_at) }]),
    ),
  };
}

/** What a sweep adds to its record: how far it read, the runs it now holds and those it let go. */
export interface SweepProgress {
  workspaceId: string;
  kind: SweepKind;
  through: number;
  /** Runs held since the last record (a run already held keeps its first kept event). */
  held: ReadonlyMap<string, HeldRun>;
  /** Runs whose kept events all went since the last record. */
  released: readonly string[];
}

/** Records a sweep's progress in the caller's unit of work (with the delete it made, where it made one). */
export async function recordSweep(tx: Tx, progress: SweepProgress): Promise<void> {
  const db = tx[SQL].db;
  const { workspaceId, kind } = progress;
  await db
    .insertInto('retention_sweeps')
    .values({ workspace_id: workspaceId, kind, through: progress.through, updated_at: tx.now })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'kind'])
        .doUpdateSet({ through: progress.through, updated_at: tx.now }),
    )
    .execute();
  const held = [...progress.held];
  for (let from = 0; from < held.length; from += 100) {
    await db
      .insertInto('retention_held')
      .values(
        held.slice(from, from + 100).map(([runId, run]) => ({
          workspace_id: workspaceId,
          kind,
          run_id: runId,
          seq: run.seq,
          created_at: run.createdAt,
        })),
      )
      .onConflict((oc) => oc.columns(['workspace_id', 'kind', 'run_id']).doNothing())
      .execute();
  }
  for (let from = 0; from < progress.released.length; from += 500) {
    await db
      .deleteFrom('retention_held')
      .where('workspace_id', '=', workspaceId)
      .where('kind', '=', kind)
      .where('run_id', 'in', progress.released.slice(from, from + 500))
      .execute();
  }
}

/** The sweeps recorded, by `<kind> <workspace>`. */
export async function recordedSweeps(reader: Reader): Promise<string[]> {
  const rows = await reader[SQL].db
    .selectFrom('retention_sweeps')
    .select(['workspace_id', 'kind'])
    .execute();
  return rows.map((row) => `${row.kind} ${row.workspace_id}`);
}

/** Forgets a workspace's sweep of a kind (its window was turned off): set again, it starts over. */
export async function forgetSweep(
  store: Store,
  workspaceId: string,
  kind: SweepKind,
): Promise<void> {
  await store.transaction(async (tx) => {
    const db = tx[SQL].db;
    for (const table of ['retention_held', 'retention_sweeps'] as const) {
      await db
        .deleteFrom(table)
        .where('workspace_id', '=', workspaceId)
        .where('kind', '=', kind)
        .execute();
    }
  });
}
