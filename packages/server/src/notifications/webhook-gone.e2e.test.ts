import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWebhooks,
  FAST_DELIVERY,
  type NotifyDeployment,
  startReceiver,
} from '../testing/notify-kit.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

type Listed = { id: string; run_id: string; state: string; attempts: number; last_error: string };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a webhook receiver answering 410 Gone (${backend.name})`,
    () => {
      let d: NotifyDeployment | undefined;
      const closers = closeAfterEach(() => d);

      /** The run's one delivery once it was dead-lettered. */
      async function deadDelivery(runId: string): Promise<Listed> {
        return waitFor(
          async () => {
            const listed = await d!.member.get(`${d!.ws}/notifications?run_id=${runId}`);
            return (listed.body.deliveries as Listed[]).find((x) => x.state === 'dead');
          },
          { what: `the dead-lettered notice of ${runId}` },
        );
      }

      it('is not retried: the notice is dead at once and the channel sends nothing more until a notice of it is redelivered', async () => {
        let status = 410;
        const receiver = await startReceiver(() => ({ status }));
        closers.push(receiver.close);
        d = await deployWebhooks(
          backend,
          [{ name: 'old-hook', url: `${receiver.url}/hook`, secrets: [SECRET], max_attempts: 5 }],
          FAST_DELIVERY,
        );
        const first = await d.park();
        const gone = await deadDelivery(first);
        expect(gone.attempts).toBe(1);
        expect(gone.last_error).toMatch(/^the receiver answered 410 Gone/);
        expect((await d.events(first, 'notification.dead_lettered'))[0]).toMatchObject({
          data: { channel: 'old-hook', attempts: 1 },
        });
        await d.airlock.notifications!.worker.idle();
        expect(receiver.received).toHaveLength(1);

        // A later notice of the channel is not posted to the receiver that said it is gone.
        const second = await d.park();
        const unsent = await deadDelivery(second);
        expect(unsent.attempts).toBe(0);
        expect(unsent.last_error).toContain('disabled');
        expect(unsent.last_error).toContain(gone.id);
        await d.airlock.notifications!.worker.idle();
        expect(receiver.received).toHaveLength(1);

        // An operator who fixed the receiver redelivers a notice: it is sent, and the channel works again.
        status = 200;
        const again = await d.member.post(`${d.ws}/notifications/${unsent.id}/redeliver`, {});
        expect(again.status).toBe(200);
        await waitFor(async () => (await d!.events(second, 'notification.delivered'))[0], {
          what: 'the redelivered notice',
        });
        const third = await d.park();
        await waitFor(async () => (await d!.events(third, 'notification.delivered'))[0], {
          what: 'a later notice of the enabled channel',
        });
        expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([
          gone.id,
          unsent.id,
          expect.any(String),
        ]);
      });

      it("dead-letters the channel's notices waiting out a backoff at once, without posting them", async () => {
        let status = 503;
        const receiver = await startReceiver(() => ({ status }));
        closers.push(receiver.close);
        // A failed attempt waits 30 to 60 s: longer than waitFor's bound, so only the 410 ends it.
        d = await deployWebhooks(
          backend,
          [{ name: 'old-hook', url: receiver.url, secrets: [SECRET] }],
          {
            ...FAST_DELIVERY,
            backoff: { baseMs: 60_000, capMs: 60_000 },
          },
        );
        const waiting = await d.park();
        await waitFor(async () => receiver.received.length === 1, { what: 'the first attempt' });
        status = 410;
        const answered = await d.park();
        const gone = await deadDelivery(answered);
        expect(gone.last_error).toMatch(/^the receiver answered 410 Gone/);
        const unsent = await deadDelivery(waiting);
        expect(unsent).toMatchObject({ attempts: 1 });
        expect(unsent.last_error).toContain(
          `disabled since its receiver answered 410 Gone to ${gone.id}`,
        );
        expect(receiver.received).toHaveLength(2);
      });
    },
  );
}
