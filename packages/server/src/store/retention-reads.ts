import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';

/**
 * For tests of the kernel's pruner (it lives here, beside the query layer's
 * key it needs): the ranges of the event log a store is asked to read in
 * batches, as the statements' own conditions say, whatever code sends them.
 */

/** One bounded read of the event log: by the workspace's key (`log`) or by a run's index (`run`). */
export interface EventLogRead {
  by: 'log' | 'run';
  /** `events` for a read of every type but some, `audit` for a read of some types only; null: every type. */
  kind: 'events' | 'audit' | null;
  /** The read's range of sequence numbers: after `after`, up to `through`. */
  after: number;
  through: number;
}

/** The comparisons a statement's conditions hold on a column, by operator, with their values. */
function comparisons(node: unknown, found: Map<string, unknown>[] = []): Map<string, unknown>[] {
  if (node === null || typeof node !== 'object') return found;
  const op = node as {
    kind?: string;
    leftOperand?: { kind?: string; column?: { column?: { name?: string } } };
    operator?: { operator?: string };
    rightOperand?: { value?: unknown; values?: readonly unknown[] };
  };
  const column = op.leftOperand?.column?.column?.name;
  if (op.kind === 'BinaryOperationNode' && column !== undefined && op.operator?.operator) {
    found.push(
      new Map([[`${column} ${op.operator.operator}`, op.rightOperand?.value ?? op.rightOperand]]),
    );
  }
  for (const value of Object.values(node)) comparisons(value, found);
  return found;
}

/** The bounded read of the event log a statement makes, or null when it is none. */
function logRead(node: RootOperationNode): EventLogRead | null {
  if (node.kind !== 'SelectQueryNode') return null;
  const from = JSON.stringify(node.from ?? null);
  if (!from.includes('"run_events"')) return null;
  const found = new Map(comparisons(node.where).flatMap((map) => [...map]));
  const after = found.get('seq >');
  const through = found.get('seq <=');
  if (typeof after !== 'number' || typeof through !== 'number') return null;
  const kind = found.has('type not in') ? 'events' : found.has('type in') ? 'audit' : null;
  if (found.has('run_id =')) return { by: 'run', kind, after, through };
  if (kind === null) return null;
  return { by: 'log', kind, after, through };
}

/**
 * Records every bounded read of the event log sent through `store` from
 * now (by the pruner or anything else) until `stop`: a read by the
 * workspace's key of some types (`seq > ? and seq <= ?` with a type
 * condition), or by a run's index (`run_id = ?` with the same range).
 */
export function watchEventLogReads(store: Store): { reads: EventLogRead[]; stop(): void } {
  const handle = store[SQL];
  const reads: EventLogRead[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      const read = logRead(args.node);
      if (read) reads.push(read);
      return args.node;
    },
    async transformResult(args) {
      return args.result;
    },
  };
  const watched = { ...handle, db: handle.db.withPlugin(plugin) };
  Object.defineProperty(store, SQL, { value: watched, configurable: true, writable: true });
  return {
    reads,
    stop() {
      Object.defineProperty(store, SQL, { value: handle, configurable: true, writable: true });
    },
  };
}
