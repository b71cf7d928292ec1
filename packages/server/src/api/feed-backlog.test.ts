import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AirlockError } from '../errors.js';
import { FeedItem } from '../feed/feed-item.js';
import { FeedBacklog } from './feed-backlog.js';

const item = (seq: number, data = '{}') =>
  new FeedItem({
    seq,
    run_id: 'run_1',
    task_key: null,
    type: 'run.round_started',
    data,
    principal: null,
    created_at: 0,
  });

describe('FeedBacklog', () => {
  it('yields the events pushed, in order, waiting for each later one', async () => {
    const backlog = new FeedBacklog();
    const controller = new AbortController();
    const drain = backlog.drain(controller.signal);
    backlog.push([item(1), item(2)]);
    expect((await drain.next()).value?.row.seq).toBe(1);
    expect((await drain.next()).value?.row.seq).toBe(2);
    const third = drain.next();
    backlog.push([item(3)]);
    expect((await third).value?.row.seq).toBe(3);
    controller.abort();
    expect(await drain.next()).toEqual({ done: true, value: undefined });
  });

  it('ends with a refusal after every event pushed before it, even when it waits', async () => {
    const backlog = new FeedBacklog();
    const drain = backlog.drain(new AbortController().signal);
    const first = drain.next();
    backlog.push([item(1), item(2)]);
    backlog.fail(new AirlockError('feed_position_pruned', 'events after 2 were pruned'));
    expect((await first).value?.row.seq).toBe(1);
    expect((await drain.next()).value?.row.seq).toBe(2);
    await expect(drain.next()).rejects.toMatchObject({ code: 'feed_position_pruned' });
  });

  it('holds one abort listener however often it waits, and none once it ends', async () => {
    const backlog = new FeedBacklog();
    const controller = new AbortController();
    const drain = backlog.drain(controller.signal);
    for (let seq = 1; seq <= 50; seq += 1) {
      const next = drain.next();
      backlog.push([item(seq)]);
      expect((await next).value?.row.seq).toBe(seq);
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const waiting = drain.next();
    controller.abort();
    expect((await waiting).done).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('ends when the signal aborts while an event is being handed out', async () => {
    const backlog = new FeedBacklog();
    const controller = new AbortController();
    const drain = backlog.drain(controller.signal);
    backlog.push([item(1)]);
    expect((await drain.next()).value?.row.seq).toBe(1);
    controller.abort();
    expect((await drain.next()).done).toBe(true);
  });

  it('drops its events and ends with unavailable once past its bound', async () => {
    const backlog = new FeedBacklog(1000);
    const drain = backlog.drain(new AbortController().signal);
    backlog.push([item(1, JSON.stringify({ text: 'x'.repeat(300) }))]);
    expect((await drain.next()).value?.row.seq).toBe(1);
    // The client stops reading: what the hub hands over piles up until the bound.
    for (let seq = 2; seq <= 20; seq += 1) {
      backlog.push([item(seq, JSON.stringify({ text: 'x'.repeat(300) }))]);
    }
    expect(backlog.size).toBe(0);
    const failure = await drain.next().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AirlockError);
    expect((failure as AirlockError).code).toBe('unavailable');
    backlog.push([item(21)]);
    expect(backlog.size).toBe(0);
  });

  it('hands over one event larger than its bound, and counts only what waits behind the oldest', async () => {
    const backlog = new FeedBacklog(1000);
    const drain = backlog.drain(new AbortController().signal);
    backlog.push([item(1, JSON.stringify({ text: 'x'.repeat(5000) }))]);
    backlog.push([item(2, JSON.stringify({ text: 'x'.repeat(300) }))]);
    expect(backlog.size).toBe(2);
    expect((await drain.next()).value?.row.seq).toBe(1);
    expect((await drain.next()).value?.row.seq).toBe(2);
  });

  it('drained() waits until every event handed over was taken, and not once it ended', async () => {
    const backlog = new FeedBacklog();
    const drain = backlog.drain(new AbortController().signal);
    await backlog.drained();
    backlog.push([item(1), item(2)]);
    let settled = false;
    const drained = backlog.drained().then(() => {
      settled = true;
    });
    expect((await drain.next()).value?.row.seq).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect((await drain.next()).value?.row.seq).toBe(2);
    await drained;
    backlog.push([item(3), item(4)]);
    expect((await drain.next()).value?.row.seq).toBe(3);
    const pending = backlog.drained();
    // The client went away with an event still waiting (tRPC ends the generator): none is left.
    await drain.return(undefined);
    await pending;
    await backlog.drained();
  });
});
