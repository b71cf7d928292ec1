import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { waitFor } from '../../testing/harness.js';
import {
  deployWithChannels,
  freePort,
  type NotifyDeployment,
  startReceiver,
} from '../../testing/notify-kit.js';
import { runOperatorCli, sqliteBackend } from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();
const SECRET = `whsec_${Buffer.alloc(32, 4).toString('base64')}`;
const airlock = (d: NotifyDeployment, args: string[]) => runOperatorInProcess(d, args);

describe('airlock notifications list|redeliver against a running kernel', () => {
  let d: NotifyDeployment;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let healthy = false;
  let runId: string;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: healthy ? 204 : 500 }));
    d = await deployWithChannels(
      sqlite,
      ({ workspaceId }) => ({
        channels: [
          {
            name: 'ops',
            kind: 'webhook',
            workspace: workspaceId,
            url: receiver.url,
            secrets: [SECRET],
            max_attempts: 1,
          },
        ],
      }),
      { port: await freePort(), notificationTuning: { pollMs: 50 } },
    );
    runId = await d.park();
    await waitFor(async () => (await d.events(runId, 'notification.dead_lettered'))[0]);
  });
  afterAll(async () => {
    await d?.close();
    await receiver?.close();
  });

  let id: string;

  it('lists the dead letter with its error, never a secret', async () => {
    const listed = await airlock(d, ['notifications', 'list', '--state', 'dead']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/ntf_\S+ {2}dead {2}ops \(webhook\) {2}task\.parked/);
    expect(listed.stdout).toContain('last error: the receiver answered 500');
    expect(listed.stdout).not.toContain(SECRET);
    id = /(ntf_\S+)/.exec(listed.stdout)![1]!;
  }, 120_000);

  it('redelivers it with the same id once the receiver is back', async () => {
    healthy = true;
    const again = await airlock(d, ['notifications', 'redeliver', id]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`${id} is due again now (ops)`);
    await waitFor(async () => (await d.events(runId, 'notification.delivered'))[0]);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(id);
    const json = await airlock(d, ['notifications', 'list', '--run', runId, '--json']);
    expect(JSON.parse(json.stdout).deliveries[0]).toMatchObject({
      id,
      state: 'delivered',
      attempts: 1,
    });
  }, 120_000);

  it('refuses a bad state and an unknown delivery with their codes', async () => {
    const bad = await airlock(d, ['notifications', 'list', '--state', 'lost']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'airlock notifications list: --state wants one of pending, delivered, dead, not lost\n',
    );
    const missing = await airlock(d, ['notifications', 'redeliver', 'ntf_missing']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('delivery_not_found');
  }, 120_000);

  it('pages the outbox: prints the next page command, --all reads every page', async () => {
    const second = await d.park();
    await waitFor(async () => (await d.events(second, 'notification.delivered'))[0]);
    const page = await airlock(d, ['notifications', 'list', '--limit', '1']);
    expect(page.code).toBe(0);
    const shown = page.stdout.match(/^ntf_\S+/gm);
    expect(shown).toHaveLength(1);
    const hint =
      /showing 1; more notifications exist, next page: airlock notifications list --limit 1 --cursor (\S+)/.exec(
        page.stdout,
      );
    expect(hint).not.toBeNull();
    const next = await airlock(d, ['notifications', 'list', '--limit', '1', '--cursor', hint![1]!]);
    const rest = next.stdout.match(/^ntf_\S+/gm);
    expect(rest).toHaveLength(1);
    // Exactly two deliveries: the page holding the last one offers no next page.
    expect(next.stdout).not.toContain('next page');
    expect(rest![0]).not.toBe(shown![0]);
    const whole = await airlock(d, ['notifications', 'list', '--limit', '2']);
    expect(whole.stdout.match(/^ntf_/gm)).toHaveLength(2);
    expect(whole.stdout).not.toContain('next page');
    const all = await airlock(d, ['notifications', 'list', '--limit', '1', '--all', '--json']);
    const body = JSON.parse(all.stdout);
    expect(body.deliveries.map((row: { id: string }) => row.id)).toEqual([...shown!, ...rest!]);
    expect(body.next_cursor).toBeNull();
    const both = await airlock(d, ['notifications', 'list', '--cursor', hint![1]!, '--all']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--cursor or --all');
    const made = await airlock(d, ['notifications', 'list', '--cursor', 'bm90LWEtY3Vyc29y']);
    expect(made.code).not.toBe(0);
    expect(made.stderr).toContain('invalid_input');
  }, 120_000);

  // The real CLI in a child process prints what the command printed in-process (the cases
  // above run it in-process, as cli.ts runs it: testing/cli-in-process.ts).
  it('the spawned CLI lists as the command does in-process', async () => {
    const args = ['notifications', 'list', '--state', 'dead'];
    const spawned = await runOperatorCli(d, args);
    expect(spawned).toEqual(await runOperatorInProcess(d, args));
    expect(spawned.code).toBe(0);
  });
});
