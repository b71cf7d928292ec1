import type { AdvisoryLockHold } from '../../store/advisory-lock.js';
import { readRetentionPolicy } from '../../store/retention.js';
import {
  type CommittedExports,
  readCommittedExports,
  writeCommittedExports,
} from '../../store/retention-exports.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import type { PruningPace } from './pruning-pace.js';
import { ExportFolder, type ExportLines, exportDay, exportLocation } from './retention-export.js';

/**
 * The workspace's retention policy was changed (or removed) since the pass
 * read it: the step deleted nothing, and the workspace's pruning stops in
 * this pass; the next pass applies the new policy.
 */
export class RetentionPolicyChangedError extends Error {
  constructor(readonly workspaceId: string) {
    super(`the retention policy of workspace ${workspaceId} changed while it was pruned`);
    this.name = 'RetentionPolicyChangedError';
  }
}

/**
 * One workspace's pruning within a pass: every step exports what it is
 * about to delete, then deletes it in one short unit of work that also
 * records the export files' lengths, so each pruned row is exported exactly
 * once even when a kernel dies between the two (see ExportFolder).
 */
export class PruningSteps {
  private constructor(
    private readonly ctx: KernelContext,
    private readonly hold: AdvisoryLockHold,
    private readonly folder: ExportFolder,
    private readonly identity: { workspaceId: string; location: string },
    private committed: CommittedExports,
    private readonly pace: PruningPace | undefined,
    private readonly policyUpdatedAt: number,
  ) {}

  /**
   * Starts a workspace's pruning: cuts its export files back to what the
   * last committed step wrote (recording them first when nothing was ever
   * recorded at this location).
   */
  static async open(options: {
    ctx: KernelContext;
    hold: AdvisoryLockHold;
    exportDir: string;
    workspaceId: string;
    /** Rests after each step (see PruningPace); absent: never rests. */
    pace?: PruningPace | undefined;
    /** The `updated_at` of the policy the pass prunes by: a step under another deletes nothing. */
    policyUpdatedAt: number;
  }): Promise<PruningSteps> {
    const { ctx, workspaceId } = options;
    const identity = { workspaceId, location: await exportLocation(options.exportDir) };
    const folder = new ExportFolder(options.exportDir, workspaceId);
    const recorded = await readCommittedExports(ctx.store, workspaceId, identity.location);
    await options.hold.confirm();
    const { cutBytes, keptIn, record } = await folder.repair(recorded, exportDay(ctx.store.now()), {
      now: ctx.store.now(),
      keepCut: true,
    });
    if (cutBytes > 0) {
      ctx.logger.warn(
        { workspace: workspaceId, bytes: cutBytes, kept_in: keptIn },
        'retention: cut export lines past what the store recorded (a delete that never committed is exported again; after a restore from an older backup they may be the only copy, kept in kept_in)',
      );
    }
    if (!recorded) {
      await ctx.store.transaction((tx) => writeCommittedExports(tx, { ...identity, ...record }));
    }
    return new PruningSteps(
      ctx,
      options.hold,
      folder,
      identity,
      record,
      options.pace,
      options.policyUpdatedAt,
    );
  }

  /**
   * Exports a step's lines (flushed to disk), then runs `remove` and records
   * the export in one unit of work, then rests as the pace asks; answers how
   * long the unit's statements ran (milliseconds). When the export cannot be
   * written whole or the unit fails, the lines are cut again (while the lock
   * still holds), so the step can be redone at once.
   * @throws RetentionExportError when the export cannot be written whole (nothing is deleted);
   *   RetentionPolicyChangedError when the workspace's policy changed since the pass read it
   *   (nothing is deleted);
   *   Error when the lock was lost or the unit fails
   *   (unless the caller redoes the step, the pass stops; the next one cuts
   *   the export back if this one could not, and redoes it).
   */
  async commit(lines: ExportLines, remove: (tx: Tx) => Promise<void>): Promise<number> {
    await this.hold.confirm();
    const now = this.ctx.store.now();
    let step: { next: CommittedExports; heldMs: number };
    try {
      // A torn export (a full disk) is cut at once, freeing its space, and nothing is deleted.
      const next = await this.folder.append(lines, { now, committed: this.committed });
      const heldMs = await this.ctx.store.transaction(async (tx) => {
        const started = performance.now();
        await remove(tx);
        await this.confirmPolicy(tx);
        await writeCommittedExports(tx, { ...this.identity, ...next });
        return performance.now() - started;
      });
      step = { next, heldMs };
    } catch (error) {
      await this.cutBack(now);
      throw error;
    }
    this.committed = step.next;
    await this.rest();
    return step.heldMs;
  }

  /**
   * Rests after a step as the pass's pace asks (see PruningPace), then
   * gives the event loop a turn: SQLite's reads answer synchronously, so a
   * run of batches that delete nothing (and write no export) would
   * otherwise hold the kernel's thread from one to the next, whatever the pace.
   */
  async rest(): Promise<void> {
    await this.pace?.rest();
    await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * Refuses the step (its unit rolls back) when the policy is not the one the
   * pass read. Read last and without a lock of its own: a step that deleted
   * events already holds the policy's row (deleteEvents moves its pruned
   * position), which a change of the policy waits for; the workspace's row a
   * change locks first is one a commit locks last, to number its events, so
   * a step holding it could wait for a row such a commit holds, and deadlock.
   */
  private async confirmPolicy(tx: Tx): Promise<void> {
    const policy = await readRetentionPolicy(tx, this.identity.workspaceId);
    if (policy === undefined || Number(policy.updated_at) !== this.policyUpdatedAt) {
      throw new RetentionPolicyChangedError(this.identity.workspaceId);
    }
  }

  /** Cuts the folder back to the last committed step, when this pass still holds the lock. */
  private async cutBack(now: number): Promise<void> {
    try {
      await this.hold.confirm();
      // The lines of this pass's own failed step: written again by the step, not kept aside.
      await this.folder.repair(this.committed, exportDay(now), { now, keepCut: false });
    } catch (failure) {
      this.ctx.logger.warn(
        { err: failure, workspace: this.identity.workspaceId },
        'retention: could not cut back the export of a failed step; the next pass does',
      );
    }
  }
}
