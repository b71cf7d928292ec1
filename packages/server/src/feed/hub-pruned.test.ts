import type { KyselyPlugin, QueryId, RootOperationNode } from 'kysely';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AirlockError } from '../errors.js';
import { createWorkspace } from '../store/accounts.js';
import { deleteEvents, writeRetentionPolicy } from '../store/retention.js';
import { Store } from '../store/store.js';
import { waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { FeedHub } from './hub.js';

/**
 * A subscriber catching up in pages is checked against what retention
 * pruned at every page, not only where it started: a pass that deletes
 * events while it reads refuses it (`feed_position_pruned`, naming where it
 * stood), after every event before that position and none past it.
 */

const all = await backends();
const logger = pino({ level: 'silent' });

/** Commits `count` events on `runId` in one unit of work. */
async function commit(store: Store, workspaceId: string, runId: string, count: number) {
  await store.transaction(async (tx) => {
    for (let i = 0; i < count; i += 1) {
      tx.emit({
        workspace_id: workspaceId,
        run_id: runId,
        type: 'run.round_started',
        data: { round: i, calls: 1 },
      });
    }
  });
}

/** Runs `between` once, after the `nth` read of the event log has been answered and before its rows return. */
class AfterLogRead implements KyselyPlugin {
  private readonly logReads = new Set<QueryId>();
  private seen = 0;

  constructor(
    private readonly nth: number,
    private readonly between: () => Promise<void>,
  ) {}

  transformQuery(args: { node: RootOperationNode; queryId: QueryId }): RootOperationNode {
    const node = args.node as {
      kind: string;
      from?: { froms: { table?: { identifier?: { name?: string } } }[] };
    };
    const table = node.from?.froms[0]?.table?.identifier?.name;
    if (node.kind === 'SelectQueryNode' && table === 'run_events') this.logReads.add(args.queryId);
    return args.node;
  }

  async transformResult<R>(args: { queryId: QueryId; result: R }): Promise<R> {
    if (!this.logReads.delete(args.queryId)) return args.result;
    this.seen += 1;
    if (this.seen === this.nth) await this.between();
    return args.result;
  }
}

/** The store as the hub sees it: its reads pass through `plugin`. */
function throughPlugin(store: Store, plugin: KyselyPlugin): Store {
  const db = store.db.withPlugin(plugin);
  return Object.create(store, { db: { get: () => db } }) as Store;
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a feed catching up past pruning (${backend.name})`,
    () => {
      let disposers: (() => Promise<void>)[] = [];
      afterEach(async () => {
        for (const dispose of disposers.reverse()) await dispose();
        disposers = [];
      });

      async function subscribeWhilePruning(runId: string | null) {
        const opened = await backend.open();
        disposers.push(opened.dispose);
        const { store } = opened;
        const workspace = await createWorkspace(store, 'feed');
        const workspaceId = workspace.id;
        await store.transaction((tx) =>
          writeRetentionPolicy(tx, {
            workspaceId,
            principal: 'member:test',
            events_days: 1,
            runs_days: null,
            audit_days: null,
          }),
        );
        await commit(store, workspaceId, 'r', 1500);
        // Retention runs on a store of its own (on SQLite the hub's connection is busy with its read).
        const pruner = opened.location.dataDir
          ? await Store.open({ dataDir: opened.location.dataDir })
          : store;
        if (pruner !== store) disposers.push(() => pruner.close());
        // While the hub reads its second page (501..1000), retention deletes 1001..1100.
        const pruning = new AfterLogRead(2, async () => {
          await pruner.transaction((tx) => deleteEvents(tx, workspaceId, range(1001, 1100)));
        });
        const hub = new FeedHub(throughPlugin(store, pruning), logger, 5000, 3_600_000);
        await hub.start();
        disposers.push(() => hub.stop());
        const seqs: number[] = [];
        const refusals: { refusal: AirlockError; after: number }[] = [];
        hub.subscribe({
          workspaceId,
          runId,
          after: 0,
          deliver: (items) => {
            for (const item of items) seqs.push(item.view.seq);
          },
          refuse: (refusal, after) => refusals.push({ refusal, after }),
        });
        await waitFor(async () => refusals.length === 1, { what: 'a refusal' });
        return { seqs, refusal: refusals[0]!, hub };
      }

      it('refuses a whole-workspace subscriber at the page that may miss events, after the pages before it', async () => {
        const { seqs, refusal, hub } = await subscribeWhilePruning(null);
        expect(refusal.refusal.code).toBe('feed_position_pruned');
        expect(refusal.after).toBe(500);
        expect(refusal.refusal.detail).toContain('after=1100');
        expect(seqs).toEqual(range(1, 500));
        // Refused once and gone: the hub holds no subscriber for it any more.
        expect(hub.stats()).toEqual({ live: 0, catchingUp: 0, maxLagEvents: 0 });
      });

      it("refuses one run's subscriber the same way once the run is gone", async () => {
        // Run `r` has no row (as once retention pruned it): nothing says its events are whole.
        const { seqs, refusal } = await subscribeWhilePruning('r');
        expect(refusal.refusal.code).toBe('feed_position_pruned');
        expect(refusal.after).toBe(500);
        expect(seqs).toEqual(range(1, 500));
      });
    },
  );
}
