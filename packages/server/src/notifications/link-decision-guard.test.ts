import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
} from '../testing/notify-kit.js';
import { backends } from '../testing/stores.js';
import type { ActionClaim } from './action-links.js';
import { decideAsLink, LinkSpentError } from './link-decision-guard.js';
import { decideForMember } from './member-decision.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a link's decision checks the link inside the kernel's transaction (${backend.name})`,
    () => {
      let d: NotifyDeployment | undefined;
      closeAfterEach(() => d);

      /**
       * A call parked under a policy that wants two approvals, as a link of alice's mail
       * names it; its row as the API shows it.
       */
      async function parked() {
        d = await deployWithChannels(backend, () => ({ channels: [] }), {
          port: await freePort(),
          notificationTuning: FAST_DELIVERY,
        });
        const policy = await d.member.put(`${d.ws}/approval_policy`, {
          policy: { rules: [{ actions: ['destructive'], required: 2 }] },
        });
        expect(policy.status).toBe(200);
        const runId = await d.park();
        const row = async () =>
          (await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body as {
            state: string;
            version: string;
            approvals?: { received: unknown[] };
          };
        const { version } = await waitFor(async () => {
          const now = await row();
          return now.state === 'needs_approval' ? now : undefined;
        });
        const claimOf = (action: 'approve' | 'deny'): ActionClaim => ({
          workspace_id: d!.workspaceId,
          channel: 'mail',
          run_id: runId,
          task_key: 't1',
          version,
          action,
          member: d!.memberCredentialId,
          expires_at: Number.MAX_SAFE_INTEGER,
        });
        const decide = (claim: ActionClaim) =>
          decideAsLink(claim, () =>
            decideForMember(d!.airlock.kernel.context, {
              workspaceId: claim.workspace_id,
              memberCredentialId: claim.member,
              runId: claim.run_id,
              taskKey: claim.task_key,
              version: claim.version,
              action: claim.action,
              via: 'email',
            }),
          );
        return { runId, version, row, claimOf, decide };
      }

      it('refuses the link’s deny, and changes nothing, once the member’s approval is recorded (it raced the check before)', async () => {
        const { version, runId, row, claimOf, decide } = await parked();
        // The approve (the mail's other link, or the inbox) lands after the deny link's own check.
        const approved = await d!.member.post(`${d!.ws}/runs/${runId}/tasks/t1/approve`, {
          version,
        });
        expect(approved.status).toBe(200);
        await expect(decide(claimOf('deny'))).rejects.toBeInstanceOf(LinkSpentError);
        const now = await row();
        expect(now.state).toBe('needs_approval');
        expect(now.approvals?.received).toHaveLength(1);
      });

      it('lets the link’s deny through when another member approved', async () => {
        const { version, runId, row, claimOf, decide } = await parked();
        const approved = await d!.otherMember.client.post(
          `${d!.ws}/runs/${runId}/tasks/t1/approve`,
          { version },
        );
        expect(approved.status).toBe(200);
        const { value } = await decide(claimOf('deny'));
        expect(value.decided).toBe(true);
        expect((await row()).state).toBe('failed');
      });

      it('says whether the link’s approve counted: a repeat the kernel counts once did not', async () => {
        const { claimOf, decide } = await parked();
        expect((await decide(claimOf('approve'))).approvalCounted).toBe(true);
        expect((await decide(claimOf('approve'))).approvalCounted).toBe(false);
      });
    },
  );
}
