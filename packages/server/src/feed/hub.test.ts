import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../store/accounts.js';
import { Store } from '../store/store.js';
import { waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import type { FeedItem } from './feed-item.js';
import { FeedHub } from './hub.js';

const all = await backends();
const logger = pino({ level: 'silent' });

/** Commits `count` events on `runId`, one transaction each (a kernel verb's shape). */
async function commit(store: Store, workspaceId: string, runId: string, count: number) {
  for (let i = 0; i < count; i += 1) {
    await store.transaction(async (tx) => {
      tx.emit({
        workspace_id: workspaceId,
        run_id: runId,
        type: 'run.round_started',
        data: { round: i, calls: 1 },
      });
    });
  }
}

/** Counts the hub's reads of the event log (the real store still answers them). */
function countLogReads(store: Store): { reads: number } {
  const counter = { reads: 0 };
  const selectFrom = store.db.selectFrom.bind(store.db);
  store.db.selectFrom = ((table: string) => {
    if (table === 'run_events') counter.reads += 1;
    return selectFrom(table as never);
  }) as typeof store.db.selectFrom;
  return counter;
}

function collector() {
  const seqs: number[] = [];
  const runs: string[] = [];
  const frames: string[] = [];
  return {
    seqs,
    runs,
    frames,
    deliver: (items: readonly FeedItem[]) => {
      for (const item of items) {
        seqs.push(item.view.seq);
        runs.push(item.view.run_id);
        frames.push(item.frame);
      }
    },
  };
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`the feed hub (${backend.name})`, () => {
    let disposers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const dispose of disposers.reverse()) await dispose();
      disposers = [];
    });
    async function open() {
      const opened = await backend.open();
      disposers.push(opened.dispose);
      // The safety poll is off here (an hour): the reads counted below are the hub's own.
      const hub = new FeedHub(opened.store, logger, 5000, 3_600_000);
      await hub.start();
      disposers.push(() => hub.stop());
      const workspace = await createWorkspace(opened.store, 'feed');
      return { ...opened, hub, workspaceId: workspace.id };
    }

    it('counts no lag for a live subscriber that received every event', async () => {
      const { store, hub, workspaceId } = await open();
      const everything = collector();
      hub.subscribe({ workspaceId, after: 0, deliver: everything.deliver });
      await commit(store, workspaceId, 'r', 1);
      await waitFor(async () => hub.stats().catchingUp === 0 && everything.seqs.length === 1);
      await commit(store, workspaceId, 'r', 30);
      await waitFor(async () => everything.seqs.length === 31);
      expect(hub.stats()).toEqual({ live: 1, catchingUp: 0, maxLagEvents: 0 });
    });

    it('serves live subscribers from memory: quiet ones cost no read, each frame is built once', async () => {
      const { store, hub, workspaceId } = await open();
      const everything = collector();
      hub.subscribe({ workspaceId, after: 0, deliver: everything.deliver });
      const quiet = Array.from({ length: 300 }, (_, i) => {
        const c = collector();
        hub.subscribe({ workspaceId, runId: `quiet-${i}`, after: 0, deliver: c.deliver });
        return c;
      });
      const busyRun = collector();
      hub.subscribe({ workspaceId, runId: 'busy', after: 0, deliver: busyRun.deliver });
      await commit(store, workspaceId, 'other', 1);
      await waitFor(async () => everything.seqs.length === 1);
      // The quiet subscribers each read the log once to catch up; on a loaded machine some are
      // still reading after the first event arrives. Count only once every one is live.
      await waitFor(async () => hub.stats().catchingUp === 0);
      // Every subscriber is live now: what follows must come from memory.
      const log = countLogReads(store);
      const started = performance.now();
      await commit(store, workspaceId, 'busy', 20);
      await commit(store, workspaceId, 'other', 20);
      await waitFor(async () => everything.seqs.length === 41);
      expect(everything.seqs).toEqual(range(1, 41));
      expect(busyRun.seqs).toEqual(range(2, 21));
      expect(quiet.every((c) => c.seqs.length === 0)).toBe(true);
      // On SQLite the only read is the safety poll's, once a second for the whole workspace
      // (commits that sync to disk can make this take more than a second on a busy machine).
      const seconds = Math.ceil((performance.now() - started) / 1000);
      if (backend.name === 'sqlite') expect(log.reads).toBeLessThanOrEqual(seconds);
      // PostgreSQL's NOTIFY (one per commit, this process's own included) reads forward for the
      // whole workspace, never once per subscriber (300 quiet ones here would make 12,000 reads).
      // A commit can cost two reads (its NOTIFY's, and one more when this process's own report of
      // a later commit lands while that read is still out), plus the safety poll's.
      else expect(log.reads).toBeLessThanOrEqual(2 * 41 + seconds);
      // One serialization per event, shared by every subscriber that received it.
      const shared = everything.frames.slice(1, 21);
      expect(busyRun.frames.every((frame, i) => frame === shared[i])).toBe(true);
      expect(JSON.parse(shared[0]!)).toMatchObject({
        type: 'event',
        event: { seq: 2, run_id: 'busy' },
      });
    });

    it('lets a client resume from a sequence number while commits continue: no gap, no repeat', async () => {
      const { store, hub, workspaceId } = await open();
      await commit(store, workspaceId, 'r', 30);
      const resumer = collector();
      const runOnly = collector();
      const writing = commit(store, workspaceId, 'r', 30);
      hub.subscribe({ workspaceId, after: 10, deliver: resumer.deliver });
      hub.subscribe({ workspaceId, runId: 'r', after: 25, deliver: runOnly.deliver });
      await writing;
      await commit(store, workspaceId, 'r', 5);
      await waitFor(async () => resumer.seqs.length === 55 && runOnly.seqs.length === 40);
      expect(resumer.seqs).toEqual(range(11, 65));
      expect(runOnly.seqs).toEqual(range(26, 65));
    });

    it('gives the event loop a turn between the pages of a long catch-up', async () => {
      const { store, hub, workspaceId } = await open();
      await store.transaction(async (tx) => {
        for (let i = 0; i < 1200; i += 1) {
          tx.emit({
            workspace_id: workspaceId,
            run_id: 'r',
            type: 'run.round_started',
            data: { round: i, calls: 1 },
          });
        }
      });
      const reader = collector();
      hub.subscribe({ workspaceId, after: 0, deliver: reader.deliver });
      // A turn asked for now comes while the catch-up still reads: on SQLite the reads give the
      // loop none of their own, so without a turn between pages it came after all 1,200 events
      // (and a socket wrote none of them before then).
      const atTheTurn = await new Promise<number>((resolve) =>
        setImmediate(() => resolve(reader.seqs.length)),
      );
      expect(atTheTurn).toBeLessThan(1200);
      await waitFor(async () => reader.seqs.length === 1200);
      expect(reader.seqs).toEqual(range(1, 1200));
    });

    it.skipIf(backend.name !== 'postgres')(
      "hears another process's commits again once its lost listening connection is back",
      async () => {
        const { hub, workspaceId, location } = await open();
        const reader = collector();
        hub.subscribe({ workspaceId, after: 0, deliver: reader.deliver });
        // Another kernel process on the same database: only NOTIFY tells this one of its commits
        // (the hub's safety poll is off here).
        const other = await Store.open({ databaseUrl: location.databaseUrl! });
        disposers.push(() => other.close());
        const listening = async () =>
          (
            await sql<{ pid: number }>`select pid from pg_stat_activity
              where datname = current_database() and query ilike 'listen airlock_events'`.execute(
              other.db,
            )
          ).rows.map((row) => row.pid);
        const [first] = await waitFor(async () => {
          const pids = await listening();
          return pids.length === 1 ? pids : undefined;
        });
        await commit(other, workspaceId, 'r', 1);
        await waitFor(async () => reader.seqs.length === 1, { what: 'the first commit heard' });
        // The database ends the listening connection (a restart or failover does the same).
        await sql`select pg_terminate_backend(${first!})`.execute(other.db);
        await waitFor(
          async () => {
            const pids = await listening();
            return pids.length === 1 && pids[0] !== first;
          },
          { what: 'a new listening connection' },
        );
        await commit(other, workspaceId, 'r', 1);
        await waitFor(async () => reader.seqs.length === 2, { what: 'the second commit heard' });
        expect(reader.seqs).toEqual([1, 2]);
      },
    );

    it('goes on with a catch-up whose read failed once, though nothing more is committed', async () => {
      const opened = await backend.open();
      disposers.push(opened.dispose);
      // The safety poll on, every 50 ms.
      const hub = new FeedHub(opened.store, logger, 5000, 50);
      await hub.start();
      disposers.push(() => hub.stop());
      const { id: workspaceId } = await createWorkspace(opened.store, 'feed');
      await commit(opened.store, workspaceId, 'r', 3);
      // The store fails the next read of the log (a dropped connection, a busy database).
      const selectFrom = opened.store.db.selectFrom.bind(opened.store.db);
      let failures = 0;
      opened.store.db.selectFrom = ((table: string) => {
        if (table === 'run_events' && failures === 0) {
          failures += 1;
          throw new Error('the database went away for a moment');
        }
        return selectFrom(table as never);
      }) as typeof opened.store.db.selectFrom;
      const reader = collector();
      hub.subscribe({ workspaceId, after: 0, deliver: reader.deliver });
      await waitFor(async () => reader.seqs.length === 3, { what: 'the catch-up resumed' });
      expect(failures).toBe(1);
      expect(reader.seqs).toEqual([1, 2, 3]);
    });

    it('holds a subscriber that resumes past the head until the head reaches it', async () => {
      const { store, hub, workspaceId } = await open();
      await commit(store, workspaceId, 'r', 3);
      const ahead = collector();
      hub.subscribe({ workspaceId, after: 5, deliver: ahead.deliver });
      await commit(store, workspaceId, 'r', 4);
      await waitFor(async () => ahead.seqs.length === 2);
      expect(ahead.seqs).toEqual([6, 7]);
    });

    it('stops delivering to a closed subscription, and forgets a workspace nobody follows', async () => {
      const { store, hub, workspaceId } = await open();
      const first = collector();
      const subscription = hub.subscribe({ workspaceId, after: 0, deliver: first.deliver });
      await commit(store, workspaceId, 'r', 2);
      await waitFor(async () => first.seqs.length === 2);
      subscription.close();
      await commit(store, workspaceId, 'r', 2);
      const second = collector();
      hub.subscribe({ workspaceId, after: 0, deliver: second.deliver });
      await waitFor(async () => second.seqs.length === 4);
      expect(first.seqs).toEqual([1, 2]);
    });
  });
}

const postgres = all.find((backend) => backend.name === 'postgres')!;
describe.skipIf(postgres.skip !== null)('the feed hub across processes (postgres)', () => {
  it('does not read the log for a commit it is already past (its own, mostly)', async () => {
    const opened = await postgres.open();
    const hub = new FeedHub(opened.store, logger);
    await hub.start();
    try {
      const workspace = await createWorkspace(opened.store, 'feed');
      const everything = collector();
      hub.subscribe({ workspaceId: workspace.id, after: 0, deliver: everything.deliver });
      await commit(opened.store, workspace.id, 'r', 3);
      await waitFor(async () => everything.seqs.length === 3);
      const notify = (payload: string) =>
        sql`select pg_notify('airlock_events', ${payload})`.execute(opened.store.db);
      await new Promise((done) => setTimeout(done, 100));
      const log = countLogReads(opened.store);
      // Five notices of commits the hub has delivered, spaced so that none merges into another read.
      for (let i = 0; i < 5; i++) {
        await notify(`${workspace.id} 3`);
        await new Promise((done) => setTimeout(done, 40));
      }
      // A notice without a sequence number (an older kernel's) is always read.
      await notify(workspace.id);
      await waitFor(async () => log.reads >= 1);
      await new Promise((done) => setTimeout(done, 100));
      // One read for the last notice, and at most one more from the hub's one-second safety poll.
      expect(log.reads).toBeLessThanOrEqual(2);
      expect(everything.seqs).toEqual([1, 2, 3]);
    } finally {
      await hub.stop();
      await opened.dispose();
    }
  });

  it('delivers another process’s commits in order, read once for every subscriber', async () => {
    const writer = await postgres.open();
    const { Store: StoreClass } = await import('../store/store.js');
    const reader = await StoreClass.open({ databaseUrl: writer.location.databaseUrl! });
    const hub = new FeedHub(reader, logger);
    await hub.start();
    try {
      const workspace = await createWorkspace(writer.store, 'feed');
      const subscribers = Array.from({ length: 50 }, () => {
        const c = collector();
        hub.subscribe({ workspaceId: workspace.id, after: 0, deliver: c.deliver });
        return c;
      });
      await commit(writer.store, workspace.id, 'r', 25);
      await waitFor(async () => subscribers.every((c) => c.seqs.length === 25));
      for (const c of subscribers) expect(c.seqs).toEqual(range(1, 25));
    } finally {
      await hub.stop();
      await reader.close();
      await writer.dispose();
    }
  });

  it('listens only while it has subscribers, so it hears nothing of commits before', async () => {
    const writer = await postgres.open();
    const { Store: StoreClass } = await import('../store/store.js');
    const reader = await StoreClass.open({ databaseUrl: writer.location.databaseUrl! });
    // Every notice the reader's listener passes on, recorded before the hub sees it.
    const heard: string[] = [];
    const listen = reader.listen.bind(reader);
    reader.listen = (onWorkspace) =>
      listen((workspaceId, lastSeq) => {
        heard.push(`${lastSeq}`);
        onWorkspace(workspaceId, lastSeq);
      });
    const hub = new FeedHub(reader, logger, 0);
    await hub.start();
    const unlistened = async () => {
      const found = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and query = 'unlisten airlock_events' and state = 'idle'`.execute(
        writer.store.db,
      );
      return found.rows[0]!.n === 1;
    };
    try {
      const workspace = await createWorkspace(writer.store, 'feed');
      await commit(writer.store, workspace.id, 'r', 2);
      const first = collector();
      const subscription = hub.subscribe({
        workspaceId: workspace.id,
        after: 0,
        deliver: first.deliver,
      });
      await waitFor(async () => first.seqs.length === 2);
      await commit(writer.store, workspace.id, 'r', 1);
      await waitFor(async () => heard.includes('3'));
      // PostgreSQL delivers notices in order: had the first two commits been heard, they would be first.
      expect(heard).toEqual(['3']);
      subscription.close();
      await waitFor(unlistened);
      await commit(writer.store, workspace.id, 'r', 1);
      const second = collector();
      hub.subscribe({ workspaceId: workspace.id, after: 3, deliver: second.deliver });
      await waitFor(async () => second.seqs.length === 1);
      await commit(writer.store, workspace.id, 'r', 1);
      await waitFor(async () => second.seqs.length === 2);
      await waitFor(async () => heard.includes('5'));
      expect(heard).toEqual(['3', '5']);
      expect(second.seqs).toEqual([4, 5]);
    } finally {
      await hub.stop();
      await reader.close();
      await writer.dispose();
    }
  });
});
