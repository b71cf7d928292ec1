import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import {
  DEFAULT_PRUNING_PACE,
  InvalidPruningPaceError,
  PruningPace,
  parsePruningPace,
} from './pruning-pace.js';
import { RetentionPruner } from './retention.js';

const DAY = 24 * 60 * 60 * 1000;
const SAY_HI = {
  approval_mode: 'bypass',
  input: 'hello',
  provider: { kind: 'scripted', rounds: [{ final: 'hi' }] },
};
const root = mkdtempSync(join(tmpdir(), 'airlock-pruning-pace-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Keeps the thread busy for `ms` milliseconds (the work a step would do). */
function work(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy on purpose
  }
}

describe('parsePruningPace', () => {
  it('reads a decimal share from 0.01 to 1; absent or empty is the default', () => {
    expect(parsePruningPace('0.5')).toBe(0.5);
    expect(parsePruningPace('.05')).toBe(0.05);
    expect(parsePruningPace(' 0.01 ')).toBe(0.01);
    expect(parsePruningPace('1')).toBe(1);
    expect(parsePruningPace(undefined)).toBe(DEFAULT_PRUNING_PACE);
    expect(parsePruningPace(' ')).toBe(DEFAULT_PRUNING_PACE);
  });

  it.each([
    '0',
    '-0.5',
    '1.5',
    'fast',
    'NaN',
    '25%',
    '0x1',
    '1e-300',
    '5e-1',
    '0.001',
    'Infinity',
    '+1',
  ])('refuses %j with a stable code', (text) => {
    expect(() => parsePruningPace(text, 'AIRLOCK_RETENTION_PACE')).toThrow(InvalidPruningPaceError);
    expect(() => parsePruningPace(text)).toThrow(
      /^--retention-pace must be .*invalid_retention_pace/,
    );
  });
});

describe('PruningPace', () => {
  it('rests (1 - share) / share of the time worked since the last rest', async () => {
    const waits: number[] = [];
    let clock = 1000;
    const wait = async (ms: number) => {
      waits.push(ms);
      clock += ms;
    };
    const pace = new PruningPace(0.25, wait, () => clock);
    clock += 500; // before the pass: not counted
    pace.start();
    clock += 20;
    expect(await pace.rest()).toBe(60);
    // The rest itself is not work: the next step counts from its end.
    clock += 8;
    expect(await pace.rest()).toBe(24);
    expect(waits).toEqual([60, 24]);
    // On the real clock, busy work counts as worked.
    const real = new PruningPace(0.25, async () => {});
    real.start();
    work(20);
    expect(await real.rest()).toBeGreaterThanOrEqual(60);
  });

  it('rests at most a second at a time, and never at a share of 1', async () => {
    const waits: number[] = [];
    const slow = new PruningPace(0.001, async (ms) => waits.push(ms));
    work(5);
    expect(await slow.rest()).toBe(1000);
    const flat = new PruningPace(1, async (ms) => waits.push(ms));
    work(5);
    expect(await flat.rest()).toBe(0);
    expect(waits).toEqual([1000]);
    expect(() => new PruningPace(0)).toThrow(InvalidPruningPaceError);
  });
});

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a pruning pass keeps its pace (${backend.name})`, () => {
    let d: Deployment | undefined;
    afterEach(async () => {
      await d?.close();
      d = undefined;
    });

    it('rests after every step, three times its work at a pace of 0.25, and not at 1', async () => {
      let now = Date.now();
      d = await deploy(backend, { clock: () => now });
      const deployment = d;
      await deployment.airlock.kernel.pruner!.stop();
      for (let i = 0; i < 3; i++) {
        const created = await deployment.agent.post(`${deployment.ws}/runs`, SAY_HI);
        expect(created.status).toBe(201);
        await waitFor(
          async () =>
            (await deployment.member.get(`${deployment.ws}/runs/${created.body.id}`)).body.state ===
            'completed',
        );
      }
      now += 100 * DAY;
      const put = await deployment.member.put(`${deployment.ws}/retention`, {
        events_days: 90,
        runs_days: 90,
        audit_days: null,
      });
      expect(put.status).toBe(200);
      const pass = async (pace: number) => {
        const rests: number[] = [];
        const pruner = new RetentionPruner(deployment.airlock.kernel.context, {
          exportDir: mkdtempSync(join(root, 'exports-')),
          intervalMs: 10 * 365 * DAY,
          batchRuns: 1,
          pace,
          rest: async (ms) => rests.push(ms),
        });
        const started = performance.now();
        const report = await pruner.pruneNow();
        return { report, rests, ms: performance.now() - started };
      };
      const paced = await pass(0.25);
      // The old events in one step, then the three runs one at a time: a rest after each.
      expect(paced.report.runs).toBe(3);
      expect(paced.rests.length).toBeGreaterThanOrEqual(4);
      const rested = paced.rests.reduce((sum, ms) => sum + ms, 0);
      // The rests were asked for, not waited (the test's rest returns at once): three times the
      // steps' time, so at most three times the whole pass's. (How much less depends on what
      // the machine did after the last step; the arithmetic is checked on a test clock above.)
      expect(paced.rests.every((ms) => ms > 0)).toBe(true);
      expect(rested).toBeLessThanOrEqual(3 * paced.ms);
      // Nothing is left to prune; a new run ages and a pass at a pace of 1 never rests.
      const created = await deployment.agent.post(`${deployment.ws}/runs`, SAY_HI);
      expect(created.status).toBe(201);
      await waitFor(
        async () =>
          (await deployment.member.get(`${deployment.ws}/runs/${created.body.id}`)).body.state ===
          'completed',
      );
      now += 100 * DAY;
      const flat = await pass(1);
      expect(flat.report.runs).toBe(1);
      expect(flat.rests).toEqual([]);
    });
  });
}
