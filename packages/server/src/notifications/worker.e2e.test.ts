import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startAirlock } from '../airlock.js';
import { enqueueDeliveries } from '../store/notifications.js';
import { client, waitFor } from '../testing/harness.js';
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
import type { ChannelSenders } from './channel-senders.js';
import { parseNotificationsConfig } from './config.js';
import { DeliveryWorker } from './worker.js';

const all = await backends();
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

for (const backend of all) {
  // The two backends' suites run side by side, each case on a kernel and store of its own;
  // the cases of one backend run one at a time.
  const suite = describe.skipIf(backend.skip !== null).concurrent;
  suite(`the delivery worker (${backend.name})`, () => {
    let d: NotifyDeployment | undefined;
    const closers = closeAfterEach(() => d);

    /** Two webhook channels: `stuck`, whose receiver never answers, and `ops`, which answers 200. */
    async function deployStuckAndOps(tuning: { leaseMs?: number } = {}) {
      const stuck = await startReceiver(() => null);
      const ops = await startReceiver();
      closers.push(stuck.close, ops.close);
      d = await deployWebhooks(
        backend,
        [
          { name: 'stuck', url: stuck.url, secrets: [SECRET] },
          { name: 'ops', url: ops.url, secrets: [SECRET] },
        ],
        { ...FAST_DELIVERY, ...tuning },
      );
      return { stuck, ops };
    }

    it.sequential('a receiver that never answers holds back no other channel: the next notices still go out', async () => {
      const { stuck, ops } = await deployStuckAndOps();
      await d!.park();
      await waitFor(async () => stuck.received.length === 1 && ops.received.length === 1);
      await d!.park();
      await d!.park();
      // Well inside the webhook's own 10 s timeout: the stuck send is still in flight.
      await waitFor(async () => ops.received.length === 3, { timeoutMs: 6000, what: 'ops x3' });
    });

    it.sequential('an attempt ends at its deadline, below the lease, and is retried later', async () => {
      const { stuck } = await deployStuckAndOps({ leaseMs: 2000 });
      await d!.park();
      const failed = await failedDelivery(d!, { channel: 'stuck', timeoutMs: 4000 });
      expect(failed.last_error).toMatch(/deadline of 1000 ms/);
      await waitFor(async () => stuck.received.length >= 2, { timeoutMs: 4000 });
    });

    it.sequential('stop waits a bounded grace for a send that never ends, then leaves it for a retry', async () => {
      const { stuck } = await deployStuckAndOps();
      await d!.park();
      await waitFor(async () => stuck.received.length === 1);
      const started = Date.now();
      await d!.airlock.notifications!.close();
      // The grace is 100 ms; a stop that waited for the stuck send would take its 10 s timeout.
      expect(Date.now() - started).toBeLessThan(5000);
      const left = await failedDelivery(d!, { channel: 'stuck', timeoutMs: 0 });
      expect(left.state).toBe('pending');
      expect(left.last_error).toMatch(/stopped/);
      // A cut by a shutdown is no attempt that counts toward the dead letter.
      expect(left.attempts).toBe(0);
    });

    it.sequential('a park that expires while the kernel stops still gets its notice, sent after the restart', async () => {
      const stuck = await startReceiver(() => null);
      const ops = await startReceiver();
      closers.push(stuck.close, ops.close);
      const channels = [
        { name: 'stuck', url: stuck.url, secrets: [SECRET] },
        { name: 'ops', url: ops.url, secrets: [SECRET] },
      ];
      const configFor = ({ workspaceId }: { workspaceId: string }) => ({
        channels: channels.map((channel) => ({
          kind: 'webhook',
          workspace: workspaceId,
          ...channel,
        })),
      });
      // The stop waits up to 1.5 s for the stuck send: the park's 0.7 s clock runs out meanwhile.
      const tuning = { ...FAST_DELIVERY, stopGraceMs: 1500 };
      d = await deployWithChannels(backend, configFor, {
        port: await freePort(),
        parkTtlMs: 700,
        notificationTuning: tuning,
      });
      const runId = await d.park();
      await waitFor(async () => stuck.received.length === 1 && ops.received.length === 1);
      await d.airlock.close();
      const again = await startAirlock({
        ...(d.databaseUrl
          ? { databaseUrl: d.databaseUrl }
          : { dataDir: d.airlock.store.dataDir ?? undefined }),
        rateLimit: null,
        authFailureLimit: null,
        sweepIntervalMs: 50,
        parkTtlMs: 700,
        notifications: parseNotificationsConfig(configFor(d)),
        notificationTuning: tuning,
      });
      closers.unshift(() => again.close());
      const types = () => ops.received.map((request) => JSON.parse(request.body).type as string);
      await waitFor(async () => types().includes('airlock.task.expired'), {
        timeoutMs: 5000,
        what: `the expired park's notice (ops got ${types().join(', ')})`,
      });
      const expired = (
        await client(again.url, d.tokens.member).get(`${d.ws}/runs/${runId}/tasks/t1`)
      ).body;
      expect(expired.state).toBe('timed_out');
    });

    it.sequential('a send that ignores its cut is waited for: it lands once, recorded delivered, not failed and sent again', async () => {
      await deployStuckAndOps();
      // The kernel's own worker stops: this test runs one over a sender that cannot be cancelled.
      await d!.airlock.notifications!.close();
      const runId = await d!.park();
      const { store } = d!.airlock;
      await store.transaction((tx) =>
        enqueueDeliveries(tx, [
          {
            workspace_id: d!.workspaceId,
            run_id: runId,
            task_key: null,
            event_type: 'airlock.task.parked',
            channel: 'ops',
            channel_kind: 'webhook',
            payload: {},
          },
        ]),
      );
      // Lands 500 ms past the attempt's 2 s deadline, well inside its 4 s lease.
      const sends: number[] = [];
      const senders = {
        channelOf: () => undefined,
        async send() {
          sends.push(Date.now());
          await new Promise((resolve) => setTimeout(resolve, 2500));
          return null;
        },
      } as unknown as ChannelSenders;
      const worker = new DeliveryWorker({
        store,
        senders,
        logger: pino({ level: 'silent' }),
        leaseMs: 4000,
        ...FAST_DELIVERY,
      });
      worker.start();
      try {
        await waitFor(async () => (await d!.events(runId, 'notification.delivered'))[0], {
          timeoutMs: 6000,
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(sends).toHaveLength(1);
      } finally {
        // Before the deployment closes its store under the worker's polls.
        await worker.stop();
      }
    });
  });
}
