import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { axeViolations, browserSkipReason } from '../support/browser.js';
import { eventually } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

/*
 * What an `openai` model writes beside its tool calls (its plan) reaches the run's story from
 * the round's `run.round_started` event: above the round's first row, as plain text (markup
 * shows as text, hidden characters as marks), and a long plan folded behind its first line.
 * The first round's plan comes from the feed's history after the rows are drawn, the second
 * round's live, while the page is open.
 */

const SHORT_PLAN = 'I will list the folder <img src=x onerror="window.injected=1"> first\u202e.';
const LONG_PLAN = Array.from({ length: 40 }, (_, i) => `Step ${i + 1}: check the next file.`).join(
  '\n',
);

const call = (id: string, command: string) => ({
  id,
  type: 'function',
  function: { name: 'bash', arguments: JSON.stringify({ command }) },
});

/** A chat-completions endpoint: two calls with a short plan, one with a long plan, then done. */
function modelMessage(n: number) {
  if (n === 1) {
    return {
      role: 'assistant',
      content: SHORT_PLAN,
      tool_calls: [call('c1', 'ls'), call('c2', 'pwd')],
    };
  }
  if (n === 2) return { role: 'assistant', content: LONG_PLAN, tool_calls: [call('c3', 'du')] };
  return { role: 'assistant', content: 'done' };
}

let asked = 0;
const model: Server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    asked += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ index: 0, message: modelMessage(asked) }] }));
  });
});
await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
const modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;

describe.skipIf(browserSkipReason !== null)(
  "the web inbox in headless Chromium: the model's plan in a run's story",
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1000, height: 900 }, 120_000, {
      openai: { baseUrl: modelUrl, apiKey: 'sk-test', model: 'm' },
    });
    afterAll(() => {
      model.closeAllConnections();
      model.close();
    });

    /** Approves every call of the run that waits, once `count` of them wait. */
    async function approveWaiting(runId: string, count: number) {
      const waiting = await eventually(async () => {
        const list = (await f.ws.decisions.list()).filter(
          (decision) => decision.isApproval() && decision.run_id === runId,
        );
        return list.length === count && list;
      });
      for (const decision of waiting) if (decision.isApproval()) await decision.approve();
    }

    it('shows each round’s plan as text above its first row, a long one folded', async () => {
      const run = await f.ws.runs.create({
        approval_mode: 'ask',
        input: 'tidy the folder',
        provider: { kind: 'openai' },
      });
      await eventually(async () => (await f.ws.runs.run(run.id).tasks()).length === 2);
      const page = await f.openSignedIn(`#/runs/${run.id}`);

      const first = page.locator('.run-view .row[data-task="t1"] > .plan');
      await first.waitFor();
      expect(await first.locator('.plan-title').textContent()).toBe(
        "The model's plan for round 1:",
      );
      expect(await first.locator('.plan-text').textContent()).toBe(
        'I will list the folder <img src=x onerror="window.injected=1"> first⟨U+202E⟩.',
      );
      expect(await page.locator('.run-view img').count()).toBe(0);
      // One plan a round: the round's second row has none.
      expect(await page.locator('.run-view .row[data-task="t2"] .plan').count()).toBe(0);

      await approveWaiting(run.id, 2);
      const long = page.locator('.run-view .row[data-task="t3"] > details.plan.folded');
      await long.waitFor();
      expect(await long.getAttribute('open')).toBeNull();
      expect(await long.locator('summary').textContent()).toBe(
        `The model's plan for round 2 (${LONG_PLAN.length.toLocaleString('en-US')} characters on 40 lines, folded): ${LONG_PLAN.replace(/\s+/g, ' ').slice(0, 160)}…`,
      );
      expect(await long.locator('.plan-text').isVisible()).toBe(false);
      await long.locator('summary').click();
      await long.locator('.plan-text').waitFor({ state: 'visible' });
      expect(await long.locator('.plan-text').textContent()).toBe(LONG_PLAN);
      // Its box scrolls within the row: the row's Approve stays near.
      const box = await long.locator('.plan-text').boundingBox();
      expect(box?.height ?? 0).toBeLessThan(600);
      expect(await axeViolations(page)).toEqual([]);
      expect(await page.evaluate(() => (window as { injected?: number }).injected)).toBeUndefined();

      await approveWaiting(run.id, 1);
      expect((await f.ended(run.id)).state).toBe('completed');
    });
  },
);
