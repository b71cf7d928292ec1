import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  failedDelivery,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { bodyOf, startSmtp } from '../testing/smtp-receiver.js';
import { backends } from '../testing/stores.js';

/**
 * A park's mail sent after its call was decided (the SMTP server refused it
 * until then) says what became of the call and carries no action links: they
 * would decide nothing, and the mail would still ask for a decision.
 */

const all = await backends();
const LINK_SECRET = 'k8Vd2pQx7rN4mZ1sT6wY9bC3fH5jL0aE';

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a park's mail sent late (${backend.name})`, () => {
    let d: NotifyDeployment | undefined;
    const closers = closeAfterEach(() => d);

    it('a mail sent after its call was approved says so, without action links', async () => {
      const smtp = await startSmtp();
      closers.push(smtp.close);
      smtp.refused.add('alice@example.com');
      d = await deployWithChannels(
        backend,
        ({ workspaceId, memberCredentialId, url }) => ({
          public_url: url,
          channels: [
            {
              name: 'mail',
              kind: 'email',
              workspace: workspaceId,
              smtp: { host: '127.0.0.1', port: smtp.port },
              from: 'airlock@example.com',
              to: ['alice@example.com'],
              // Retried every 20 to 100 ms: room to spare before it would be dead-lettered.
              max_attempts: 50,
              action_links: {
                secret: LINK_SECRET,
                members: { 'alice@example.com': memberCredentialId },
              },
            },
          ],
        }),
        { port: await freePort(), notificationTuning: FAST_DELIVERY },
      );
      const runId = await d.park();
      await failedDelivery(d, { channel: 'mail' });
      const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {});
      expect(approved.status).toBe(200);
      // An attempt that read the row before the approval may be in flight: two more failed
      // attempts mean one began after it, so the mail that lands read the call decided.
      const { attempts } = await failedDelivery(d, { channel: 'mail' });
      await waitFor(
        async () => (await failedDelivery(d!, { channel: 'mail' })).attempts >= attempts + 2,
        { what: 'an attempt begun after the approval refused' },
      );
      smtp.refused.delete('alice@example.com');
      const mail = await waitFor(
        async () => smtp.mails.find((m) => bodyOf(m.raw).includes(runId)),
        {
          what: 'the mail sent',
        },
      );
      const body = bodyOf(mail.raw);
      expect(body).toMatch(/No longer waiting: Approved by/);
      expect(body).not.toMatch(/Approve: |Deny: |actions\//);
      // The call itself is still shown.
      expect(body).toContain('rm -rf /tmp/x');
    });
  });
}
