import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWebhooks,
  deployWithChannels,
  FAST_DELIVERY,
  failedDelivery,
  freePort,
  type NotifyDeployment,
  startReceiver,
} from '../testing/notify-kit.js';
import { backends } from '../testing/stores.js';
import type { NotificationPayload } from './payload.js';

const all = await backends();
// Two secrets: a rotation in progress, both sign every message.
const OLD_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const NEW_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`webhook notifications (${backend.name})`, () => {
    let d: NotifyDeployment | undefined;
    const closers = closeAfterEach(() => d);

    it('a park reaches the receiver once, signed per Standard Webhooks under every secret, and the run story records it', async () => {
      const receiver = await startReceiver();
      closers.push(receiver.close);
      d = await deployWithChannels(
        backend,
        ({ workspaceId }) => ({
          channels: [
            {
              name: 'ops',
              kind: 'webhook',
              workspace: workspaceId,
              url: `${receiver.url}/hook`,
              secrets: [OLD_SECRET, NEW_SECRET],
            },
          ],
        }),
        { port: await freePort(), notificationTuning: FAST_DELIVERY },
      );
      const runId = await d.park();
      const delivered = await waitFor(
        async () => (await d!.events(runId, 'notification.delivered'))[0],
      );
      expect(receiver.received).toHaveLength(1);
      const request = receiver.received[0]!;
      // The standardwebhooks package verifies with either secret (and throws on a bad signature).
      for (const secret of [OLD_SECRET, NEW_SECRET]) {
        const verified = new Webhook(secret).verify(
          request.body,
          request.headers,
        ) as NotificationPayload;
        expect(verified.type).toBe('airlock.task.parked');
      }
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
          request.body,
          request.headers,
        ),
      ).toThrow();
      expect(() => new Webhook(NEW_SECRET).verify(`${request.body} `, request.headers)).toThrow();
      const payload = JSON.parse(request.body) as NotificationPayload;
      expect(payload.data.task).toMatchObject({
        key: 't1',
        state: 'needs_approval',
        tool_name: 'bash',
      });
      expect(payload.data.task?.effect_profile?.action_tags).toContain('destructive');
      expect(payload.data.run.id).toBe(runId);
      expect(payload.data.card_url).toBe(`${d.url}/#/runs/${runId}`);
      expect(request.headers['webhook-id']).toBe(
        (delivered.data as { delivery_id: string }).delivery_id,
      );
      expect(delivered).toMatchObject({
        task_key: 't1',
        data: { channel: 'ops', channel_kind: 'webhook', notified: 'task.parked', attempts: 1 },
      });
      // The version in the notice is the one an approve may be bound to.
      const approve = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {
        version: payload.data.task!.version,
      });
      expect(approve.status).toBe(200);
    });

    it('retries a failing receiver with backoff, then dead-letters; a redelivery keeps the idempotency id', async () => {
      let failing = true;
      const receiver = await startReceiver((_, i) => ({ status: failing || i < 1 ? 503 : 200 }));
      closers.push(receiver.close);
      d = await deployWithChannels(
        backend,
        ({ workspaceId }) => ({
          channels: [
            {
              name: 'flaky',
              kind: 'webhook',
              workspace: workspaceId,
              url: receiver.url,
              secrets: [NEW_SECRET],
              max_attempts: 3,
            },
          ],
        }),
        { port: await freePort(), notificationTuning: FAST_DELIVERY },
      );
      const runId = await d.park();
      const dead = await waitFor(
        async () => (await d!.events(runId, 'notification.dead_lettered'))[0],
      );
      expect(receiver.received).toHaveLength(3);
      expect(dead.data).toMatchObject({ attempts: 3, error: 'the receiver answered 503' });
      const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
      expect(ids.size).toBe(1);
      failing = false;
      const id = [...ids][0]!;
      const listed = await d.member.get(`${d.ws}/notifications?state=dead`);
      expect(listed.status).toBe(200);
      expect(listed.body.deliveries.map((x: { id: string }) => x.id)).toEqual([id]);
      expect(JSON.stringify(listed.body)).not.toContain(NEW_SECRET);
      const again = await d.member.post(`${d.ws}/notifications/${id}/redeliver`, {});
      expect(again.status).toBe(200);
      await waitFor(async () => (await d!.events(runId, 'notification.delivered'))[0]);
      expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(id);
      const missing = await d.member.post(`${d.ws}/notifications/ntf_nope/redeliver`, {});
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('delivery_not_found');
    });

    it('refuses to redeliver a notice while it is being sent: no second send beside the first', async () => {
      const receiver = await startReceiver(() => null);
      closers.push(receiver.close);
      d = await deployWithChannels(
        backend,
        ({ workspaceId }) => ({
          channels: [
            {
              name: 'slow',
              kind: 'webhook',
              workspace: workspaceId,
              url: receiver.url,
              secrets: [NEW_SECRET],
            },
          ],
        }),
        { port: await freePort(), notificationTuning: { ...FAST_DELIVERY, leaseMs: 30_000 } },
      );
      await d.park();
      await waitFor(async () => receiver.received.length === 1);
      const pending = await d.member.get(`${d.ws}/notifications?state=pending`);
      const id = pending.body.deliveries[0].id as string;
      const again = await d.member.post(`${d.ws}/notifications/${id}/redeliver`, {});
      expect([again.status, again.body.error.code]).toEqual([409, 'delivery_in_flight']);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(1);
    });

    it('routes by action tag: a channel for destructive calls hears nothing of a read', async () => {
      const receiver = await startReceiver();
      closers.push(receiver.close);
      d = await deployWithChannels(
        backend,
        ({ workspaceId }) => ({
          channels: [
            {
              name: 'destructive',
              kind: 'webhook',
              workspace: workspaceId,
              url: receiver.url,
              secrets: [NEW_SECRET],
              when: { action_tags: ['destructive'] },
            },
            {
              name: 'everything',
              kind: 'webhook',
              workspace: workspaceId,
              url: `${receiver.url}/all`,
              secrets: [NEW_SECRET],
            },
          ],
        }),
        { port: await freePort(), notificationTuning: FAST_DELIVERY },
      );
      const runId = await d.park({ name: 'bash', input: { command: 'ls' } });
      await waitFor(async () => (await d!.events(runId, 'notification.delivered'))[0]);
      await d.airlock.notifications!.worker.idle();
      expect(receiver.received.map((r) => r.path)).toEqual(['/all']);
    });

    it('routes by tool on the resolved name: an alias does not take a call away from its channel', async () => {
      const receiver = await startReceiver();
      closers.push(receiver.close);
      d = await deployWebhooks(
        backend,
        [
          {
            name: 'shell',
            url: `${receiver.url}/shell`,
            secrets: [NEW_SECRET],
            when: { tools: ['bash'] },
          },
        ],
        FAST_DELIVERY,
      );
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'notify',
        tool_aliases: { sh: 'bash' },
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'sh', input: { command: 'rm -rf /tmp/x' } }] },
            { final: 'done' },
          ],
        },
      });
      expect(created.status).toBe(201);
      await waitFor(async () => (await d!.events(created.body.id, 'notification.delivered'))[0], {
        timeoutMs: 3000,
        what: 'the notice of the aliased call',
      });
      expect(receiver.received.map((r) => r.path)).toEqual(['/shell']);
    });

    it('says why a receiver could not be reached by its code, never by quoting the URL', async () => {
      const port = await freePort();
      d = await deployWebhooks(
        backend,
        [
          {
            name: 'gone',
            url: `http://127.0.0.1:${port}/hook?token=receiver-token`,
            secrets: [NEW_SECRET],
          },
        ],
        FAST_DELIVERY,
      );
      await d.park();
      const failed = await failedDelivery(d);
      expect(failed.last_error).toBe('the receiver could not be reached (ECONNREFUSED)');
    });
  });
}
