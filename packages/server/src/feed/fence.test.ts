import { afterEach, describe, expect, it } from 'vitest';
import { AirlockError } from '../errors.js';
import { waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { FeedItem } from './feed-item.js';
import { fencedSink } from './fence.js';

const [sqlite] = await backends();

const event = (seq: number, runId: string) =>
  new FeedItem({
    seq,
    run_id: runId,
    task_key: null,
    type: 'run.round_started',
    data: '{}',
    principal: null,
    created_at: 1_764_000_000_000,
  });

describe('a fenced feed whose lookup of the runs fails', () => {
  let dispose: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await dispose?.();
  });

  it('ends where the failed batch began and delivers nothing after it: no event is skipped', async () => {
    const opened = await sqlite!.open();
    dispose = opened.dispose;
    // A store that cannot answer: the lookup of these runs' applications fails.
    await opened.store.close();
    const delivered: number[] = [];
    const refusals: { code: string; after: number }[] = [];
    const sink = fencedSink(
      opened.store,
      { applicationId: 'app_1', unowned: false },
      {
        deliver: (items) => delivered.push(...items.map((item) => item.row.seq)),
        refuse: (refusal: AirlockError, after) => refusals.push({ code: refusal.code, after }),
      },
    );
    sink.deliver([event(41, `run_never_seen_${Date.now()}`), event(42, 'run_x')]);
    sink.deliver([event(43, 'run_y')]);
    sink.refuse(new AirlockError('feed_position_pruned', 'pruned'), 43);
    await waitFor(async () => refusals.length > 0);
    // What was queued behind the failed batch has run by the next turn.
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toEqual([]);
    // The client resumes after 40: events 41 to 43 are read again, none lost.
    expect(refusals).toEqual([{ code: 'unavailable', after: 40 }]);
  });
});

describe("a fenced feed's drain", () => {
  let dispose: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await dispose?.();
  });

  it('waits for the batches still being looked up, then for the sink it hands them to', async () => {
    const opened = await sqlite!.open();
    dispose = opened.dispose;
    const steps: string[] = [];
    const sink = fencedSink(
      opened.store,
      { applicationId: 'app_1', unowned: true },
      {
        deliver: (items) => steps.push(`deliver ${items.map((item) => item.row.seq).join(',')}`),
        refuse: () => steps.push('refuse'),
        drained: async () => {
          steps.push('sink drained');
        },
      },
    );
    sink.deliver([event(1, 'run_a')]);
    sink.deliver([event(2, 'run_b')]);
    await sink.drained?.();
    // Runs no store knows are of no application: inside a fence that admits those.
    expect(steps).toEqual(['deliver 1', 'deliver 2', 'sink drained']);
  });
});
