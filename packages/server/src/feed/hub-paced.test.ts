import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { createWorkspace } from '../store/accounts.js';
import type { Store } from '../store/store.js';
import { waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import type { FeedItem } from './feed-item.js';
import { FeedHub } from './hub.js';

const [sqlite] = await backends();
const logger = pino({ level: 'silent' });

let disposers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of disposers.reverse()) await dispose();
  disposers = [];
});

/** A hub over a fresh store whose workspace holds `count` events of run `r`, one page each. */
async function hubWithBacklog(count: number) {
  const opened = await sqlite!.open();
  disposers.push(opened.dispose);
  const hub = new FeedHub(opened.store, logger, 5000, 3_600_000);
  await hub.start();
  disposers.push(() => hub.stop());
  const { id: workspaceId } = await createWorkspace(opened.store, 'paced');
  // Each event near half a page of bytes: the catch-up reads them a few at a time.
  const text = 'p'.repeat(400 * 1024);
  for (let i = 0; i < count; i += 1) await emit(opened.store, workspaceId, text);
  return { hub, store: opened.store, workspaceId };
}

/** Commits one event of run `r` carrying `text` (as who ran it: any string will do). */
function emit(store: Store, workspaceId: string, text = ''): Promise<void> {
  return store.transaction(async (tx) => {
    tx.emit({
      workspace_id: workspaceId,
      run_id: 'r',
      task_key: 't1',
      type: 'task.succeeded',
      data: { state: 'succeeded', ran_by: text },
    });
  });
}

/** Waits for a few turns of the event loop: whatever the hub would do by itself, it has done. */
async function turns(count = 20): Promise<void> {
  for (let i = 0; i < count; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

it.skipIf(sqlite!.skip !== null)(
  "reads a catching-up subscriber's next page only once it drained the last, and goes live after",
  async () => {
    const { hub, store, workspaceId } = await hubWithBacklog(12);
    const seqs: number[] = [];
    const pages: number[] = [];
    let release: (() => void) | null = null;
    hub.subscribe({
      workspaceId,
      after: 0,
      deliver: (items: readonly FeedItem[]) => {
        pages.push(items.length);
        for (const item of items) seqs.push(item.row.seq);
      },
      drained: () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    });
    await waitFor(async () => pages.length === 1);
    await turns();
    // The first page waits on its drain: nothing more is read for it.
    expect(pages).toHaveLength(1);
    expect(hub.stats().catchingUp).toBe(1);
    for (let page = 1; seqs.length < 12; page += 1) {
      const releasing = release!;
      release = null;
      releasing();
      await waitFor(async () => release !== null);
      expect(pages).toHaveLength(page + 1);
    }
    expect(seqs).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    // Every page read, it joins the live ones only once the last has drained too.
    await turns();
    expect(hub.stats().catchingUp).toBe(1);
    release!();
    await waitFor(async () => hub.stats().live === 1);
    await emit(store, workspaceId);
    await waitFor(async () => seqs.length === 13);
  },
);

it.skipIf(sqlite!.skip !== null)(
  'a subscriber waiting on its drain holds up no other, and ends when it closes',
  async () => {
    const { hub, store, workspaceId } = await hubWithBacklog(4);
    let drains = 0;
    const stuck = hub.subscribe({
      workspaceId,
      after: 0,
      deliver: () => {},
      drained: () => {
        drains += 1;
        return new Promise<void>(() => {});
      },
    });
    const other: number[] = [];
    hub.subscribe({
      workspaceId,
      after: 0,
      deliver: (items) => {
        for (const item of items) other.push(item.row.seq);
      },
    });
    await waitFor(async () => other.length === 4 && hub.stats().live === 1);
    await emit(store, workspaceId);
    await waitFor(async () => other.length === 5);
    expect(drains).toBe(1);
    expect(hub.stats()).toMatchObject({ live: 1, catchingUp: 1 });
    stuck.close();
    expect(hub.stats()).toMatchObject({ live: 1, catchingUp: 0 });
  },
);
