import { createClient } from '@airlock/sdk';
import { createCredential } from '@airlock/server';
import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually, scriptedRun } from '../support/kernel.js';
import { drawnAt, leftToRight, rightToLeft } from './drawn-at.js';
import { holdFeed } from './held-feed.js';
import { useInboxFixture } from './inbox-fixture.js';

/** Bidirectional controls and isolates, which must never reach the page as they are. */
const CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;

/*
 * A row's summary is drawn in two boxes (its start, cut with an ellipsis, and its last
 * characters), each laid out alone: right-to-left words cut by that line were drawn in the
 * wrong order. And a line saying what became of a call ("it was denied by NAME first") put the
 * other member's name in as it was: a U+202E in it turned the rest of the line around.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: right-to-left text on rows and after lines',
  { timeout: 90_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    it("draws a row summary's right-to-left words in their order where its kept end begins", async () => {
      // The last 20 characters the row always shows begin between the second and third word.
      const words = ['שלום', 'עולם', 'רב', 'לכולם'];
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'bash', input: { command: `echo "${words.join(' ')}" > out.txt` } },
            ],
          },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t1')).state === 'needs_approval',
      );
      const page = await f.openInbox();
      const summary = page.locator(`.list [data-decision="${run.id}/t1"] .summary`);
      await summary.waitFor();
      expect(await summary.textContent()).toBe(`bash echo "${words.join(' ')}" > out.txt`);
      const drawn = await drawnAt(summary, ['bash echo', ...words, 'out.txt']);
      // The Hebrew words read right to left, between the command's start and its end.
      expect(rightToLeft(drawn.slice(1, 5))).toBe(true);
      expect(leftToRight([drawn[0]!, drawn[4]!, drawn[1]!, drawn[5]!])).toBe(true);
      const decision = await f.ws.decisions.get(run.id, 't1');
      if (decision?.isApproval()) await decision.deny({ reason: 'done' });
    });

    it("shows another member's name on an after line and a bulk result with its hidden characters as marks, set apart", async () => {
      const name = 'Bo \u202eanA';
      const bo = await createCredential(f.kernel.airlock.store, {
        workspaceId: f.kernel.workspace.id,
        kind: 'member',
        label: name,
      });
      const boWs = createClient({ url: f.kernel.url, token: bo.token }).workspace(
        f.kernel.workspace.id,
      );
      const run = await f.ws.runs.create(
        scriptedRun('ask', [
          {
            tool_calls: [
              { name: 'bash', input: { command: 'rm -rf out' } },
              { name: 'bash', input: { command: 'ls out' } },
              { name: 'bash', input: { command: 'du -sh out' } },
            ],
          },
          { final: 'done' },
        ]),
      );
      await eventually(
        async () => (await f.ws.runs.run(run.id).task('t3')).state === 'needs_approval',
      );
      // The page hears nothing of Bo's verbs: its feed is held back.
      const page = await f.openSignedIn('#/', undefined, undefined, async (opened) => {
        await holdFeed(opened);
      });
      const key = (task: string) => `${run.id}/${task}`;
      const row = (task: string) => page.locator(`.list [data-decision="${key(task)}"]`);
      await row('t3').waitFor();
      const denyAsBo = async (task: string) => {
        const decision = await boWs.decisions.get(run.id, task);
        if (!decision?.isApproval()) throw new Error(`${task} does not wait`);
        await decision.deny({ reason: 'no' });
      };

      // Bo denies t1; the member, reading it still, approves it from its card.
      await row('t1').locator('.open').click();
      const card = page.locator(`.detail article[data-decision="${key('t1')}"]`);
      await card.locator(':scope > .actions').waitFor();
      await denyAsBo('t1');
      await card.locator('[data-action="approve"]').click();
      const after = page.locator(`.afters .after[data-after="${key('t1')}"]`);
      await after.waitFor();
      expect(await after.textContent()).toMatch(
        /^Not approved by you: the call had stopped waiting: it was denied by Bo ⟨U\+202E⟩anA first\. /,
      );
      expect(CONTROLS.test((await after.textContent()) ?? '')).toBe(false);
      expect(await after.locator('bdi').first().textContent()).toBe('Bo ⟨U+202E⟩anA');
      const [by, named, first] = await drawnAt(after, ['denied by', 'Bo ⟨U+202E⟩anA', ' first']);
      expect(leftToRight([by!, named!, first!])).toBe(true);

      // Bo denies t2; the member approves t2 and t3 at once.
      await row('t2').locator('.tick').check();
      await row('t3').locator('.tick').check();
      await page.locator('.bulk-count').filter({ hasText: '2 selected' }).waitFor();
      await denyAsBo('t2');
      await page.locator('.bulk button.approve').click();
      const result = page.locator(`.bulk-results li[data-decision="${key('t2')}"]`);
      await result.waitFor();
      expect(await result.textContent()).toMatch(
        /: Not approved by you: the call had stopped waiting: it was denied by Bo ⟨U\+202E⟩anA first\.$/,
      );
      expect(CONTROLS.test((await result.textContent()) ?? '')).toBe(false);
      expect(f.consoleErrors.splice(0)).toEqual([
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
        'Failed to load resource: the server responded with a status of 409 (Conflict)',
      ]);
    });
  },
);
