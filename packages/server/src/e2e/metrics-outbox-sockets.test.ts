import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { SQLITE_FILE_NAME } from '../store/store.js';
import { waitFor } from '../testing/harness.js';
import {
  deployWithChannels,
  freePort,
  type NotifyDeployment,
  startReceiver,
} from '../testing/notify-kit.js';
import { connect } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const DAY = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), 'airlock-metrics-outbox-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

/** One sample of a metric in Prometheus text, by its labels; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}) {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const has = Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`));
    if (has) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/** Reads `/metrics` with the deployment's member credential. */
async function scrape(d: NotifyDeployment): Promise<string> {
  const response = await fetch(`${d.url}/metrics`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  expect(response.status).toBe(200);
  return response.text();
}

/** The HTTP status a refused WebSocket upgrade answered (fails when it was accepted). */
async function refusedWith(url: string, token: string): Promise<number> {
  const outcome = await connect(url, token).then(
    (socket) => {
      socket.close();
      return 'accepted';
    },
    (error: Error) => error.message,
  );
  const status = /^status (\d+)$/.exec(outcome)?.[1];
  if (!status) throw new Error(`the upgrade was not refused: ${outcome}`);
  return Number(status);
}

/** Opens a feed socket, sends one message over the kernel's 64 KiB limit, and waits for the close code. */
function sendOversized(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), {
      headers: { authorization: `Bearer ${token}` },
    });
    ws.on('open', () => ws.send('x'.repeat(70 * 1024)));
    ws.on('close', (code) => resolve(code));
    ws.on('error', () => {});
    ws.on('unexpected-response', () => reject(new Error('the feed refused the upgrade')));
  });
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`outbox and WebSocket metrics (${backend.name})`, () => {
    let d: NotifyDeployment | undefined;
    const closers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      await d?.close();
      d = undefined;
      for (const close of closers.splice(0)) await close();
    });

    it('airlock_notifications_pending reads the outbox backlog at each scrape', async () => {
      let failing = true;
      const receiver = await startReceiver(() => ({ status: failing ? 503 : 200 }));
      closers.push(receiver.close);
      d = await deployWithChannels(
        backend,
        ({ workspaceId }) => ({
          channels: [
            {
              name: 'ops',
              kind: 'webhook',
              workspace: workspaceId,
              url: receiver.url,
              secrets: [SECRET],
            },
          ],
        }),
        {
          port: await freePort(),
          notificationTuning: { pollMs: 50, backoff: { baseMs: 50, capMs: 100 }, maxAttempts: 50 },
        },
      );
      const deployment = d;
      expect(sample(await scrape(deployment), 'airlock_notifications_pending')).toBe(0);
      const runs = [await deployment.park(), await deployment.park(), await deployment.park()];
      // Every notice was tried and refused at least once: all three wait in the outbox.
      await waitFor(
        async () =>
          new Set(receiver.received.map((request) => request.headers['webhook-id'])).size === 3,
        { what: 'a first attempt of each notice' },
      );
      expect(sample(await scrape(deployment), 'airlock_notifications_pending')).toBe(3);
      failing = false;
      for (const runId of runs) {
        await waitFor(
          async () => (await deployment.events(runId, 'notification.delivered')).length > 0,
          {
            what: `the notice of ${runId}`,
          },
        );
      }
      expect(sample(await scrape(deployment), 'airlock_notifications_pending')).toBe(0);
    });

    it('airlock_sqlite_wal_bytes reads the WAL file of a SQLite store, and has no series on PostgreSQL', async () => {
      d = await deployWithChannels(backend, () => ({ channels: [] }), { port: await freePort() });
      await d.park();
      await d.park();
      const text = await scrape(d);
      const dataDir = d.airlock.store.dataDir;
      if (dataDir === null) {
        expect(text).not.toMatch(/^airlock_sqlite_wal_bytes[{ ]/m);
        return;
      }
      const file = join(dataDir, `${SQLITE_FILE_NAME}-wal`);
      // A member's scrape names the file, not the server's directories.
      expect(text).not.toContain(dataDir);
      const reported = sample(text, 'airlock_sqlite_wal_bytes', {
        file: `${SQLITE_FILE_NAME}-wal`,
      });
      // The file only grows between the scrape and this read (it is cut back only past 64 MiB).
      const onDisk = statSync(file).size;
      expect(reported).toBeGreaterThan(0);
      expect(reported).toBeLessThanOrEqual(onDisk);
      expect(onDisk - (reported ?? 0)).toBeLessThan(1024 * 1024);
    });

    it('airlock_errors_total counts refused feed and cable upgrades by code, and sockets closed on an error', async () => {
      let offset = 0;
      d = await deployWithChannels(backend, () => ({ channels: [] }), {
        port: await freePort(),
        clock: () => Date.now() + offset,
        retention: { exportDir: mkdtempSync(join(root, 'x-')), intervalMs: 10 * 365 * DAY },
      });
      const deployment = d;
      const feed = `${deployment.url}${deployment.ws}/feed`;
      const cable = `${deployment.url}/executor_api/v1/cable`;
      const errorsBefore = await scrape(deployment);
      const count = (text: string, code: string) =>
        sample(text, 'airlock_errors_total', { code }) ?? 0;

      expect(await refusedWith(`${feed}?after=0`, 'not-a-token')).toBe(401);
      expect(await refusedWith(`${cable}?after=0`, deployment.tokens.member)).toBe(403);
      expect(await refusedWith(`${feed}?after=soon`, deployment.tokens.member)).toBe(400);
      expect(await sendOversized(`${feed}?after=latest`, deployment.tokens.member)).toBe(1009);
      // A resume from a pruned position: a resync message, then a close on that error.
      // The kernel's first pass (started by its first sweep, late on a busy machine) is over
      // first: one still running when the clock moves would prune the events itself.
      await deployment.airlock.kernel.pruner!.pruneNow();
      // An ended run's events go with their window (a live run's are kept whole).
      const ended = await deployment.park();
      expect((await deployment.member.post(`${deployment.ws}/runs/${ended}/stop`)).status).toBe(
        200,
      );
      await deployment.member.put(`${deployment.ws}/retention`, {
        events_days: 1,
        runs_days: null,
        audit_days: null,
      });
      offset += 2 * DAY;
      expect((await deployment.airlock.kernel.pruner!.pruneNow()).events).toBeGreaterThan(0);
      const resumed = await connect(`${feed}?after=0`, deployment.tokens.member);
      await waitFor(async () => resumed.messages[0]);
      expect(resumed.messages[0]).toMatchObject({ type: 'resync', code: 'feed_position_pruned' });
      resumed.close();

      const after = await waitFor(async () => {
        const text = await scrape(deployment);
        return count(text, 'payload_too_large') > count(errorsBefore, 'payload_too_large')
          ? text
          : null;
      });
      for (const code of [
        'unauthenticated',
        'forbidden',
        'invalid_input',
        'payload_too_large',
        'feed_position_pruned',
      ]) {
        expect(count(after, code) - count(errorsBefore, code), code).toBe(1);
      }
    });
  });
}
