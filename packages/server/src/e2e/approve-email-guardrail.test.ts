import { describe, expect, it } from 'vitest';
import { putOverlay, waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { bodyOf, startSmtp } from '../testing/smtp-receiver.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * An email action link approves through the same verb as the API: a guardrail an admin added
 * after the mail went out refuses it, and the page says so instead of approving the call.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `an approve link after a guardrail (${backend.name})`,
    () => {
      let d: NotifyDeployment | undefined;
      const closers = closeAfterEach(() => d);

      it('decides nothing, and the page names the guardrail and the code', async () => {
        const smtp = await startSmtp(undefined, '127.0.0.1');
        closers.push(smtp.close);
        d = await deployWithChannels(
          backend,
          ({ workspaceId, memberCredentialId }) => ({
            channels: [
              {
                name: 'mail',
                kind: 'email',
                workspace: workspaceId,
                smtp: { host: '127.0.0.1', port: smtp.port },
                from: 'airlock@example.com',
                to: ['alice@example.com'],
                action_links: {
                  secret: 'k8Zp2vQ7mR4tW9xL1cN6bH3yF5aDe0Ju',
                  members: { 'alice@example.com': memberCredentialId },
                },
              },
            ],
          }),
          { port: await freePort(), notificationTuning: FAST_DELIVERY },
        );
        const runId = await d.park({ name: 'deploy', input: { env: 'prod' } });
        const mail = await waitFor(async () => smtp.mails[0]);
        const approve = /Approve: (\S+)/.exec(bodyOf(mail.raw))![1]!;
        const put = await putOverlay(d.member, `${d.ws}/overlays/user/me`, [
          {
            ruleSetId: 'supervised',
            rules: [
              { verdict: 'deny', guardrail: true, tools: ['deploy'], reason: 'deploys are frozen' },
            ],
          },
        ]);
        expect(put.status).toBe(200);
        const pressed = await fetch(approve, { method: 'POST' });
        expect(pressed.status).toBe(409);
        const page = await pressed.text();
        expect(page).toContain('Nothing was decided');
        expect(page).toContain('deploys are frozen');
        expect(page).toContain('approval_refused');
        const task = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
        expect(task.state).toBe('needs_approval');
        expect(task.decided_by).toBeNull();
      });
    },
  );
}
