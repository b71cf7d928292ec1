import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { largeCommand, stallWhileParking } from '../testing/large-command.js';
import type { LoopStalls } from '../testing/loop-stalls.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');
const FIRST_REQUEST = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../testing/first-large-request.ts',
);

/** The bound of issue 24: what an 800 KB command may add to the loop's longest stall. */
const BOUND_MS = 50;

/**
 * Starts a process of its own with a fresh kernel (nothing ran in it: its
 * code is as cold as after a restart) and reads the stalls of its very first
 * request, an 800 KB command over REST or tRPC, and of a control after it: the
 * same run with a two-byte command.
 */
async function firstRequestOfFreshProcess(
  surface: 'rest' | 'trpc',
): Promise<{ first: LoopStalls; control: LoopStalls }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', FIRST_REQUEST, surface],
    { timeout: 120_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** Each stall as `own (wall)`: see LoopStalls. */
const show = (list: LoopStalls[]) =>
  list.map((s) => `${s.ownMs.toFixed(0)} (${s.wallMs.toFixed(0)})`).join(', ');
/** The least own stall of a list: the attempt the machine disturbed least. */
const least = (list: LoopStalls[]) => Math.min(...list.map((s) => s.ownMs));

for (const backend of sqlite) {
  describe('an 800 KB command does not hold the event loop to be classified', () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend, { validateOutputs: false });
    });
    afterAll(async () => {
      await d?.close();
    });

    it('parking it stalls the loop no longer than parking a call carrying the same bytes unclassified (within 50 ms)', async () => {
      const target = { airlock: d.airlock, ws: d.ws, agentToken: d.tokens.agent };
      // `ls;` over and over: the most shell segments per byte, the classifier's costliest shape.
      const dense = largeCommand(800_000, 'dense');
      const hostile: LoopStalls[] = [];
      const control: LoopStalls[] = [];
      // Stalls are compared less the time the loop's thread waited for a CPU (LoopStalls.ownMs),
      // and best of up to eight pairs, stopping once within the bound: a loaded 2-core machine
      // pauses any process now and then on its own.
      for (let attempt = 0; attempt < 8; attempt++) {
        // The control carries the same 800 KB in a field no layer classifies: what reading,
        // parsing and storing the call costs anyway.
        control.push(await stallWhileParking(target, { command: 'ls', note: dense }));
        hostile.push(await stallWhileParking(target, { command: dense }));
        if (least(hostile) - least(control) <= BOUND_MS) break;
      }
      console.log(
        `[large command] longest event-loop stall per attempt, own (wall): 800 KB command ${show(hostile)} ms; same bytes unclassified ${show(control)} ms`,
      );
      expect(least(hostile) - least(control)).toBeLessThanOrEqual(BOUND_MS);
    }, 240_000);
  });

  describe('the first request of a fresh kernel process is cut into turns as well', () => {
    for (const surface of ['rest', 'trpc'] as const) {
      it(`its 800 KB command (${surface}) adds no more than 50 ms to the longest stall of a cold event loop`, async () => {
        // Cold code runs several times slower until the JIT compiles it: a step of 25 ms once
        // warm takes about 100 in the first request after a restart, an attacker's to send.
        // The control is the same process's next call, a two-byte command once the code is warm:
        // what this machine makes of any request.
        const first: LoopStalls[] = [];
        const control: LoopStalls[] = [];
        // Best of up to four fresh processes, stopping once within the bound (see above).
        for (let attempt = 0; attempt < 4; attempt++) {
          const measured = await firstRequestOfFreshProcess(surface);
          first.push(measured.first);
          control.push(measured.control);
          if (least(first) - least(control) <= BOUND_MS) break;
        }
        console.log(
          `[large command] first ${surface} request of a fresh process, longest event-loop stall, own (wall): 800 KB command ${show(first)} ms; then a two-byte command ${show(control)} ms`,
        );
        expect(least(first) - least(control)).toBeLessThanOrEqual(BOUND_MS);
      }, 480_000);
    }
  });
}
