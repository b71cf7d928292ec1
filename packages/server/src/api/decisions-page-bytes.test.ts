import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { backends } from '../testing/stores.js';
import { DECISION_PAGE_BYTES } from './decisions.js';

/**
 * A page of decisions carries each call's input twice (its `tool_input` and
 * its `effect_profile`): with large parked calls a page of fifty ran to
 * hundreds of megabytes for the inbox to load. A page stops once its calls'
 * text passes DECISION_PAGE_BYTES, and the cursor reads on from there, every
 * call once.
 */

const all = await backends();
const PROFILE = {
  approval_mode: 'ask',
  tool_manifest: [{ name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] }],
};
/** A command whose call, counted twice, is about five-eighths of a page: one fits, not two. */
const big = (n: number) => `echo ${String(n).repeat(Math.floor((5 * DECISION_PAGE_BYTES) / 16))}`;

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`decisions pages of large calls (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('holds at most its byte budget, at least one call, and the cursor reads every call once', async () => {
      d = await deploy(backend);
      expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(200);
      for (const n of [1, 2, 3]) {
        const parked = await postHookEvent(d, bashPreTool(big(n), `tu-${n}`));
        expect(parked.body.task_state, JSON.stringify(parked.body).slice(0, 300)).toBe(
          'needs_approval',
        );
      }
      const keys: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor === null ? '' : `&cursor=${cursor}`;
        const page = await d.member.get(`${d.ws}/decisions?limit=50${query}`);
        expect(page.status).toBe(200);
        expect(page.body.total).toBe(3);
        const decisions = page.body.decisions as { key: string }[];
        expect(decisions.length).toBeGreaterThan(0);
        keys.push(...decisions.map((decision) => decision.key));
        sizes.push(decisions.length);
        cursor = page.body.next_cursor as string | null;
      } while (cursor !== null);
      expect(keys.sort()).toEqual(['t1', 't2', 't3']);
      expect(sizes).toEqual([1, 1, 1]);
    });
  });
}
