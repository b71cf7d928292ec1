import { describe, expect, it } from 'vitest';
import { browserSkipReason } from '../support/browser.js';
import { eventually } from '../support/kernel.js';
import { useInboxFixture } from './inbox-fixture.js';

/*
 * A hooked agent's call runs where its shell stands (Claude Code keeps a `cd` between calls):
 * `cat key` in /repo/secrets reads secrets/key. The card says where, so the person deciding
 * reads the call as it would run.
 */
describe.skipIf(browserSkipReason !== null)(
  'the web inbox in headless Chromium: where a hooked call runs',
  { timeout: 120_000 },
  () => {
    const f = useInboxFixture({ width: 1280, height: 800 });

    it('shows the working directory the agent said on the card', async () => {
      const agent = (path: string, method: string, body: unknown) =>
        fetch(`${f.kernel.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${f.kernel.workspace.tokens.agent}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        });
      const profile = await agent('/agent_api/v1/profile/configuration', 'PUT', {
        approval_mode: 'ask',
        project_root: '/repo',
      });
      expect(profile.status).toBe(200);
      const hook = await agent('/agent_api/v1/hooks/claude-code/wait-0', 'POST', {
        session_id: 's-inbox-cwd',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'cat key' },
        tool_use_id: 'tu-1',
        cwd: '/repo/secrets',
      });
      expect(hook.status).toBe(200);
      const [run] = await f.ws.runs.list();
      await eventually(
        async () => (await f.ws.runs.run(run!.id).task('t1')).state === 'needs_approval',
      );

      const page = await f.openInbox();
      await page.locator(`.list [data-decision="${run!.id}/t1"] .open`).click();
      const card = page.locator(`.detail article[data-decision="${run!.id}/t1"]`);
      await card.waitFor();
      expect(await card.locator('.cwd').textContent()).toBe('Runs in /repo/secrets');
    });
  },
);
