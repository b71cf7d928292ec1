import type SqliteDatabase from 'better-sqlite3';
import type { ControlledTransaction, Kysely, Transaction } from 'kysely';
import { nextTurn } from '../../event-loop-turn.js';
import type { CommitObserver } from '../backend.js';
import { useChannel } from '../prepared.js';
import type { Database } from '../schema.js';
import { SqliteSequences } from './sqlite-event-log.js';
import { SqliteStatements } from './sqlite-statements.js';

/** Most units of work one SQLite transaction carries before the next ones start another. */
const MAX_UNITS_PER_BATCH = 64;

interface Batch {
  /** Serialises the batch's units on the one connection (and starts with BEGIN). */
  tail: Promise<void>;
  trx: ControlledTransaction<Database> | null;
  /** Ends the direct use of the connection by prepared queries (before COMMIT). */
  release: () => void;
  /** Delivers each unit's outcome once the batch's COMMIT returned (or failed). */
  outcomes: ((commitError: unknown) => void)[];
  units: number;
  /** Set when SQLite ended the transaction on its own: every unit of the batch fails. */
  broken: unknown;
  /** The event counters the batch's units take their sequence numbers from. */
  sequences: SqliteSequences;
}

/**
 * Group commit for SQLite. The units of work that start in the same two turns
 * of the event loop run one after another inside one SQLite transaction, each in
 * its own savepoint (a unit that throws rolls back to it and changes nothing),
 * and share one COMMIT. No unit's outcome is delivered before that COMMIT
 * returned: an answer never reports a change that is not in the WAL, and if
 * the COMMIT fails every unit of the batch fails. Durability is exactly that
 * of one transaction per unit; what is saved is the per-commit cost (the WAL
 * frames of shared pages, locks, BEGIN/COMMIT) when requests arrive together.
 */
export class GroupCommit {
  /** Told of each COMMIT that succeeded: its duration and the units it carried. */
  observer: CommitObserver | null = null;
  private open: Batch | null = null;
  private readonly idle = new Set<Promise<void>>();
  /** The connection's own statements, run directly while a batch holds it. */
  private readonly statements: SqliteStatements;
  /** Set when the WAL should be checkpointed on this connection at its next idle moment. */
  private checkpointDue = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly raw: SqliteDatabase.Database,
  ) {
    this.statements = new SqliteStatements(raw);
  }

  /**
   * Runs a unit of work in the current batch and resolves (or rejects) with
   * its outcome after the batch committed.
   */
  run<T>(unit: (trx: Transaction<Database>, sequences: SqliteSequences) => Promise<T>): Promise<T> {
    let batch = this.open;
    if (!batch || batch.units >= MAX_UNITS_PER_BATCH) batch = this.begin();
    batch.units += 1;
    const owner = batch;
    return new Promise<T>((resolve, reject) => {
      owner.tail = owner.tail.then(async () => {
        const trx = owner.trx;
        if (!trx || owner.broken !== undefined) {
          owner.outcomes.push(() => reject(owner.broken));
          return;
        }
        try {
          this.raw.exec('savepoint unit');
        } catch (error) {
          // Without its savepoint no unit of this batch can be undone alone: all of them fail.
          owner.broken = error;
          owner.outcomes.push(() => reject(error));
          return;
        }
        owner.sequences.startUnit();
        try {
          const value = await unit(trx, owner.sequences);
          this.raw.exec('release unit');
          owner.outcomes.push((commitError) =>
            commitError === undefined ? resolve(value) : reject(commitError),
          );
        } catch (error) {
          owner.sequences.restore();
          this.undo(owner, error);
          owner.outcomes.push((commitError) => reject(commitError ?? error));
        }
      });
    });
  }

  /**
   * Checkpoints the WAL on this connection as soon as no transaction is open
   * (now, or after the COMMIT under way). The checkpointer's worker copied
   * most frames already; this copies the few committed since, so that the
   * next write starts the WAL again from its beginning (see Checkpointer).
   */
  requestCheckpoint(): void {
    this.checkpointDue = true;
    this.checkpointIfIdle();
  }

  private checkpointIfIdle(): void {
    // A batch's BEGIN that is still queued runs after this: nothing else uses the connection now.
    if (!this.checkpointDue || this.raw.inTransaction) return;
    this.checkpointDue = false;
    try {
      this.raw.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Not now (a reader's snapshot, a full disk): the worker asks again after its next checkpoint.
    }
  }

  /** Waits until every batch begun so far has committed. */
  async drain(): Promise<void> {
    while (this.idle.size > 0) await Promise.allSettled([...this.idle]);
  }

  private undo(batch: Batch, error: unknown): void {
    try {
      if (!this.raw.inTransaction) throw error;
      this.raw.exec('rollback to unit');
      this.raw.exec('release unit');
    } catch (failure) {
      batch.broken = failure;
    }
  }

  private begin(): Batch {
    const batch: Batch = {
      tail: Promise.resolve(),
      trx: null,
      release: () => {},
      outcomes: [],
      units: 0,
      broken: undefined,
      sequences: new SqliteSequences(),
    };
    batch.tail = this.db
      .startTransaction()
      .execute()
      .then(
        (trx) => {
          batch.trx = trx;
          batch.release = useChannel(trx, this.statements);
        },
        (error: unknown) => {
          batch.broken = error;
        },
      );
    this.open = batch;
    // The batch stays open for two turns of the event loop, so the requests read in the next
    // poll phase join it too; pending immediates keep that poll from waiting for I/O.
    const done = new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)))
      .then(() => this.finish(batch))
      .finally(() => this.idle.delete(done));
    this.idle.add(done);
    return batch;
  }

  /** Waits for the batch's units, then commits once and delivers every outcome. */
  private async finish(batch: Batch): Promise<void> {
    let tail: Promise<void>;
    do {
      tail = batch.tail;
      await tail;
    } while (tail !== batch.tail);
    if (this.open === batch) this.open = null;
    let commitError: unknown;
    if (batch.trx) {
      try {
        if (batch.broken !== undefined) throw batch.broken;
        // The counters are written by the batch's own connection, before its COMMIT.
        await batch.sequences.flush(batch.trx);
        batch.release();
        const started = this.observer ? performance.now() : 0;
        await batch.trx.commit().execute();
        this.observer?.((performance.now() - started) / 1000, batch.units);
        // After the COMMIT of large values, answering (views, frames) waits for the next turn.
        if (this.statements.takeLargeWrite()) await nextTurn(null);
      } catch (error) {
        batch.release();
        commitError = error ?? new Error('the transaction failed');
        await batch.trx
          .rollback()
          .execute()
          .catch(() => {});
      }
    }
    for (const deliver of batch.outcomes) deliver(commitError);
    this.checkpointIfIdle();
  }
}
