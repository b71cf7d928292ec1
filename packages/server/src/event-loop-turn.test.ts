import { readFile } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nextTurn } from './event-loop-turn.js';

/** What ran first after `work` awaited a turn: a timer already due, or the awaited rest. */
function orderAfterTurn(start: (work: () => void) => void): Promise<string[]> {
  return new Promise((done) => {
    start(async () => {
      const order: string[] = [];
      setTimeout(() => order.push('timer'), 0);
      // Busy until the timer is due (a timer of 0 ms waits 1 ms): only a turn lets it run.
      const until = performance.now() + 3;
      while (performance.now() < until) {}
      order.push(await nextTurn('after'));
      setTimeout(() => done(order), 5);
    });
  });
}

describe('nextTurn', () => {
  it('lets a due timer run first when called from an I/O callback (a body read to its end)', async () => {
    const order = await orderAfterTurn((work) => readFile(import.meta.filename, () => work()));
    expect(order).toEqual(['timer', 'after']);
  });

  it('lets a due timer run first when called from an immediate', async () => {
    const order = await orderAfterTurn((work) => setImmediate(work));
    expect(order).toEqual(['timer', 'after']);
  });

  it('resolves with the value it was given', async () => {
    await expect(nextTurn({ rows: [] })).resolves.toEqual({ rows: [] });
  });
});
