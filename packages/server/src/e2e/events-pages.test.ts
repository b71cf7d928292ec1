import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchUpFromLog, FEED_PAGE_BYTES, type Subscriber } from '../feed/catch-up.js';
import type { FeedItem } from '../feed/feed-item.js';
import { EVENT_PAGE_BYTES, readEventPage } from '../store/events.js';
import { type Deployment, deploy, runOfCalls } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/** Parked calls, each edited to a large input: one large `task.edited` event each. */
const CALLS = 10;
const BLOB = 600_000;

interface Event {
  seq: number;
  type: string;
  data: unknown;
}

const dataBytes = (events: readonly Event[]) =>
  events.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event.data)), 0);

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`event pages bounded by bytes (${backend.name})`, () => {
    let d: Deployment;
    let runId: string;
    const events = (query: string) => d.member.get(`${d.ws}/runs/${runId}/events?${query}`);

    beforeAll(async () => {
      d = await deploy(backend);
      runId = await runOfCalls(d, {
        mode: 'ask',
        tool: 'deploy',
        count: CALLS,
        state: 'needs_approval',
      });
      for (let n = 1; n <= CALLS; n += 1) {
        const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t${n}/approve`, {
          tool_input: { n, blob: String(n % 10).repeat(BLOB) },
        });
        expect(approved.status).toBe(200);
      }
    }, 120_000);
    afterAll(async () => {
      await d.close();
    });

    /** Every event of the run, a few rows at a time (no page near the byte budget). */
    async function everyEventInSmallPages(): Promise<Event[]> {
      const all: Event[] = [];
      for (;;) {
        const page = await events(`limit=3&after=${all.at(-1)?.seq ?? 0}`);
        expect(page.status).toBe(200);
        all.push(...page.body.events);
        if (typeof page.body.next_after !== 'number') return all;
      }
    }

    it('stops a page before it would pass the byte budget, and says where to go on', async () => {
      const first = await events('limit=1000');
      expect(first.status).toBe(200);
      const page: Event[] = first.body.events;
      const all = await everyEventInSmallPages();
      expect(dataBytes(all)).toBeGreaterThan(EVENT_PAGE_BYTES);
      expect(page.length).toBeGreaterThan(0);
      expect(page.length).toBeLessThan(all.length);
      expect(dataBytes(page)).toBeLessThanOrEqual(EVENT_PAGE_BYTES);
      expect(first.body.next_after).toBe(page.at(-1)!.seq);
    });

    it('hands over every event exactly once, in order, when paged on by next_after', async () => {
      const all = await everyEventInSmallPages();
      const paged: Event[] = [];
      let after = 0;
      for (let pages = 0; ; pages += 1) {
        expect(pages).toBeLessThan(all.length);
        const page = await events(`limit=1000&after=${after}`);
        expect(page.status).toBe(200);
        paged.push(...page.body.events);
        if (typeof page.body.next_after !== 'number') break;
        after = page.body.next_after;
      }
      expect(paged.map((event) => event.seq)).toEqual(all.map((event) => event.seq));
      expect(paged.filter((event) => event.type === 'task.edited')).toHaveLength(CALLS);
    });

    it('ends a page at the row limit with next_after, and the last page with null', async () => {
      const all = await everyEventInSmallPages();
      const full = await events('limit=2');
      expect(full.body.events.map((event: Event) => event.seq)).toEqual(
        all.slice(0, 2).map((event) => event.seq),
      );
      expect(full.body.next_after).toBe(all[1]!.seq);
      const tail = await events(`limit=1000&after=${all.at(-2)!.seq}`);
      expect(tail.body.events.map((event: Event) => event.seq)).toEqual([all.at(-1)!.seq]);
      expect(tail.body.next_after).toBeNull();
      const past = await events(`after=${all.at(-1)!.seq}`);
      expect(past.body).toEqual({ events: [], next_after: null });
    });

    it('holds at least one event however small the budget, so a large one still gets through', async () => {
      const all = await everyEventInSmallPages();
      const edited = all.find((event) => event.type === 'task.edited')!;
      const page = await readEventPage(d.airlock.store, {
        workspaceId: d.workspaceId,
        runId,
        after: edited.seq - 1,
        limit: 1000,
        maxBytes: 1000,
      });
      expect(page.rows.map((row) => row.seq)).toEqual([edited.seq]);
      expect(page.more).toBe(true);
    });

    it('a feed catching up from the log reads a page of bounded bytes at a time', async () => {
      const all = await everyEventInSmallPages();
      const batches: FeedItem[][] = [];
      const subscriber: Subscriber = {
        workspaceId: d.workspaceId,
        runId,
        cursor: 0,
        live: false,
        busy: false,
        closed: false,
        deliver: () => {},
        refuse: () => {},
      };
      const feed = {
        head: all.at(-1)!.seq,
        wholeWorkspace: new Set<Subscriber>(),
        byRun: new Map([[runId, new Set([subscriber])]]),
        lagging: new Set([subscriber]),
        reading: false,
        readAgain: false,
      };
      await catchUpFromLog(
        {
          store: d.airlock.store,
          logger: pino({ level: 'silent' }),
          remove: () => {},
          deliver: (_, items) => batches.push([...items]),
        },
        feed,
        subscriber,
      );
      expect(subscriber.live).toBe(true);
      expect(batches.flat().map((item) => item.row.seq)).toEqual(all.map((event) => event.seq));
      expect(batches.length).toBeGreaterThan(1);
      for (const batch of batches) {
        const bytes = batch.reduce((sum, item) => sum + Buffer.byteLength(item.row.data), 0);
        if (batch.length > 1) expect(bytes).toBeLessThanOrEqual(FEED_PAGE_BYTES);
      }
    });
  });
}
