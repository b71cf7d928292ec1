import { afterEach, describe, expect, it } from 'vitest';
import { AirlockError } from '../../errors.js';
import { authenticate } from '../../store/accounts.js';
import { gatedContext, someoneWaitsForALock } from '../../testing/gated-store.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';
import { claimTask } from './executor.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/** A standalone run that calls `build` once, then ends. */
const buildOnce = {
  approval_mode: 'bypass',
  input: 'build it',
  provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'build' }] }, { final: 'built' }] },
};

/**
 * Two kernels claim one row by its address at once. The claim that read the
 * row as runnable before the other's claim committed finds it claimed at its
 * write: it must say so, not blame a sequential tool or a path lock in a run
 * that has none.
 */
describe.skipIf(postgres.skip !== null)(
  'a row claimed by another kernel meanwhile (postgres)',
  () => {
    let d: Deployment | undefined;
    afterEach(async () => {
      await d?.close();
      d = undefined;
    });

    it('answers not_claimable saying the row is claimed now', async () => {
      d = await deploy(postgres);
      const runId = (await d.agent.post(`${d.ws}/runs`, buildOnce)).body.id as string;
      const ctx = d.airlock.kernel.context;
      const principal = (await authenticate(ctx.store, d.tokens.executor))!;
      const address = { workspaceId: d.workspaceId, runId, taskKey: 't1' };
      let second: Promise<unknown> | undefined;
      // The first claim has moved the row and holds it until the second waits for its row lock.
      const first = gatedContext(ctx, {
        inside: async () => {
          second = claimTask(ctx, principal, address, {}).catch((error: unknown) => error);
          await someoneWaitsForALock(ctx.store);
        },
      });
      const won = await claimTask(first, principal, address, {});
      expect(won.task.state).toBe('claimed');
      const lost = await second;
      expect(lost).toBeInstanceOf(AirlockError);
      expect(lost).toMatchObject({
        code: 'not_claimable',
        detail: expect.stringContaining('is claimed'),
      });
      expect((lost as AirlockError).detail).not.toMatch(/sequential|paths/);
    });
  },
);
