import type { CompiledQuery, KyselyPlugin, RootOperationNode } from 'kysely';
import { describe, expect, it } from 'vitest';
import { backends } from '../testing/stores.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';
import { readAuditEvents, SINCE_CLOCK_ALLOWANCE_MS } from './audit-events.js';
import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';

/**
 * An audit read `since` a time starts its walk of the log near that time, not at
 * the workspace's first event: the page's statement is bounded below by the last
 * event more than the clock allowance older than `since` (found by a binary
 * search of the primary key), so an export of the last hour on a store of months
 * reads the last hour. A decision stamped out of order within the allowance (two
 * kernels' clocks apart) is still read.
 */

const HOUR = 60 * 60 * 1000;
const OLD = 400;
/** The old decisions are a quarter of an hour apart, the last one ten hours before `since`. */
const SINCE = OLD * (HOUR / 4) + 10 * HOUR;

/** A reader that remembers each statement it sends, compiled with its parameters. */
function recordingReader(store: Store): { reader: Reader; sent: CompiledQuery[] } {
  const sent: CompiledQuery[] = [];
  const handle = store[SQL];
  const recorder: KyselyPlugin = {
    transformQuery(args) {
      sent.push(handle.db.getExecutor().compileQuery(args.node as RootOperationNode, args.queryId));
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { reader: { [SQL]: { ...handle, db: handle.db.withPlugin(recorder) } }, sent };
}

/** The value a statement compares `run_events.seq` with (`seq > ?`): its lower bound. */
function seqLowerBound(compiled: CompiledQuery): number {
  const at = compiled.sql.indexOf('"run_events"."seq" > ');
  expect(at).toBeGreaterThan(-1);
  const marks = compiled.sql.slice(0, at).match(/\?|\$\d+/g) ?? [];
  const next = compiled.sql.slice(at).match(/\?|\$(\d+)/)!;
  const index = next[1] !== undefined ? Number(next[1]) - 1 : marks.length;
  return Number(compiled.parameters[index]);
}

describe.each(await backends())('an audit read since a time on $name', (backend) => {
  it.skipIf(backend.skip !== null)(
    'walks from the allowance before `since`, and reads a decision stamped out of order within it',
    async () => {
      const { store, dispose } = await backend.open();
      try {
        const { workspaceId } = await workspaceWithTokens(store, 'since');
        const rows = [];
        // Old decisions; then ten within the allowance, one of them stamped after `since` by a
        // clock ahead of the others; then the decisions since.
        for (let seq = 1; seq <= OLD; seq += 1) rows.push({ seq, at: seq * (HOUR / 4) });
        for (let seq = OLD + 1; seq <= OLD + 10; seq += 1) rows.push({ seq, at: SINCE - HOUR / 2 });
        rows[OLD + 4]!.at = SINCE + HOUR / 2;
        for (let seq = OLD + 11; seq <= OLD + 15; seq += 1) rows.push({ seq, at: SINCE + seq });
        await store.db
          .insertInto('run_events')
          .values(
            rows.map(({ seq, at }) => ({
              workspace_id: workspaceId,
              seq,
              run_id: 'run_1',
              task_key: `t${seq}`,
              type: 'task.granted' as const,
              data: '{}',
              principal: null,
              created_at: at,
            })),
          )
          .execute();
        await store.db
          .updateTable('workspaces')
          .set({ event_seq: OLD + 15 })
          .where('id', '=', workspaceId)
          .execute();
        expect(SINCE_CLOCK_ALLOWANCE_MS).toBeGreaterThan(HOUR / 2);
        expect(SINCE_CLOCK_ALLOWANCE_MS).toBeLessThan(10 * HOUR);

        for (const order of ['oldest', 'newest'] as const) {
          const { reader, sent } = recordingReader(store);
          const page = await readAuditEvents(reader, {
            workspaceId,
            types: ['task.granted'],
            sinceMs: SINCE,
            after: 0,
            order,
            limit: 100,
          });
          const seqs = page.rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
          expect(seqs).toEqual([OLD + 5, OLD + 11, OLD + 12, OLD + 13, OLD + 14, OLD + 15]);
          const pageRead = sent.find((query) => /left join "tasks"/.test(query.sql))!;
          // Every event stamped more than the allowance before `since` is left unread.
          expect(seqLowerBound(pageRead)).toBe(OLD);
        }
      } finally {
        await dispose();
      }
    },
  );
});
