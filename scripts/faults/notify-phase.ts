import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Received,
  startReceiver,
  verifiesWithStandardWebhooks,
} from '../../packages/server/src/testing/notify-kit.js';
import { callUntilAnswered, type Loose, sleep } from './http.js';
import { type KernelProcess, type StoreArgs, startKernel } from './kernel-process.js';
import type { PhaseProgress } from './phase-progress.js';

/**
 * The notification outbox under kill -9 (issue 27): kernels with two webhook
 * channels are killed at random moments while runs park and their notices
 * are sent (the receiver answers slowly, so kills land between the event and
 * its delivery). After a restart every parked row must have reached each
 * channel under exactly one idempotency id, every message must verify with
 * the standardwebhooks package, and the outbox must end with nothing pending
 * and nothing dead-lettered.
 */

const SECRET = `whsec_${Buffer.alloc(32, 11).toString('base64')}`;
const CHANNELS = ['ops', 'audit'] as const;

function between(low: number, high: number): number {
  return low + Math.floor(Math.random() * (high - low));
}

/** Runs the phase; answers its violations (empty when it held). */
export async function notifyPhase(
  name: string,
  stores: StoreArgs[],
  killer: (kernels: KernelProcess[], until: number) => Promise<number>,
  options: { windowMs: number; runs: number },
  progress: PhaseProgress,
): Promise<string[]> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'airlock-notify-faults-'));
  const receiver = await startReceiver(() => ({ status: 200 }));
  // Slow answers: a kill lands while a send is in flight.
  receiver.server.removeAllListeners('request');
  receiver.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[key] = value;
      }
      const request: Received = {
        path: req.url ?? '/',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      setTimeout(
        () => {
          receiver.received.push(request);
          res.writeHead(204).end();
        },
        between(0, 400),
      );
    });
  });
  const kernels: KernelProcess[] = [];
  try {
    progress.stage('starting kernels');
    // The first start prints the workspace; the channels name it.
    const first = await startKernel(`${name}-banner`, stores[0]!);
    const bannerBy = Date.now() + 10_000;
    while (!first.stderr.includes('member token') && Date.now() < bannerBy) await sleep(50);
    const banner = first.stderr;
    await first.stop();
    const workspace = /workspace\s+(\S+)/.exec(banner)?.[1];
    const agent = /agent token\s+(\S+)/.exec(banner)?.[1];
    const member = /member token\s+(\S+)/.exec(banner)?.[1];
    if (!workspace || !agent || !member) throw new Error(`no workspace in the banner:\n${banner}`);
    const file = join(dir, 'notifications.json');
    writeFileSync(
      file,
      JSON.stringify({
        channels: CHANNELS.map((channel) => ({
          name: channel,
          kind: 'webhook',
          workspace,
          url: `${receiver.url}/${channel}`,
          secrets: [SECRET],
        })),
        delivery: { poll_ms: 200, lease_ms: 2000, backoff_base_ms: 100, backoff_cap_ms: 1000 },
      }),
    );
    for (const [i, store] of stores.entries()) {
      kernels.push(await startKernel(`${name}-${i + 1}`, store, ['--notifications', file]));
    }
    const ws = `/api/v1/workspaces/${workspace}`;
    progress.stage(`parks under kill -9 for ${options.windowMs / 1000} s`);
    const killing = killer(kernels, Date.now() + options.windowMs);
    let answered = 0;
    for (let i = 0; i < options.runs; i++) {
      // Sent again while the kernel is down: a duplicate run is one more park to announce.
      const created = await callUntilAnswered(kernels, agent, 'POST', `${ws}/runs`, {
        approval_mode: 'ask',
        input: `notify ${i}`,
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'bash', input: { command: `rm -rf /tmp/n${i}` } }] },
            { final: 'done' },
          ],
        },
      });
      if (created.status === 201) answered += 1;
      await sleep(options.windowMs / options.runs);
    }
    const kills = await killing;
    for (const kernel of kernels) if (!kernel.alive()) await kernel.start();
    progress.stage('draining: waiting for every notice to be delivered');
    // Drain: every park announced on each channel, and nothing left pending.
    const drainEnds = Date.now() + 60_000;
    let parked: { run: string; key: string }[] = [];
    let outbox: Loose[] = [];
    for (;;) {
      const decisions = await callUntilAnswered(
        kernels,
        member,
        'GET',
        `${ws}/decisions?limit=1000`,
      );
      parked = (decisions.body.decisions as Loose[]).map((d) => ({ run: d.run_id, key: d.key }));
      const listed = await callUntilAnswered(
        kernels,
        member,
        'GET',
        `${ws}/notifications?limit=1000`,
      );
      outbox = listed.body.deliveries as Loose[];
      if (outbox.every((d) => d.state !== 'pending') || Date.now() > drainEnds) break;
      await sleep(250);
    }
    const found: string[] = [];
    const ids = new Map<string, Set<string>>();
    let unverified = 0;
    for (const request of receiver.received) {
      if (!verifiesWithStandardWebhooks(SECRET, request)) unverified += 1;
      const payload = JSON.parse(request.body) as Loose;
      const key = `${request.path} ${payload.data.run.id} ${payload.data.task?.key}`;
      const seen = ids.get(key) ?? new Set<string>();
      seen.add(request.headers['webhook-id']!);
      ids.set(key, seen);
    }
    if (unverified > 0) found.push(`${unverified} message(s) failed standardwebhooks verification`);
    for (const row of parked) {
      for (const channel of CHANNELS) {
        const seen = ids.get(`/${channel} ${row.run} ${row.key}`);
        if (!seen) found.push(`park ${row.run} ${row.key} never reached channel ${channel}`);
        else if (seen.size !== 1) {
          found.push(`park ${row.run} ${row.key} reached ${channel} under ${seen.size} ids`);
        }
      }
    }
    const parkedKeys = new Set(parked.map((row) => `${row.run} ${row.key}`));
    for (const key of ids.keys()) {
      const [, run, task] = key.split(' ');
      if (!parkedKeys.has(`${run} ${task}`))
        found.push(`a notice for ${run} ${task}, which is not parked`);
    }
    const left = outbox.filter((d) => d.state !== 'delivered');
    if (left.length > 0)
      found.push(
        `${left.length} deliveries ended ${[...new Set(left.map((d) => d.state))].join(', ')}`,
      );
    const resent = receiver.received.length - [...ids.values()].reduce((n, s) => n + s.size, 0);
    progress.say(
      `fault-test ${name}: ${kernels.length} kernel(s), ${kills} kill -9, ${answered} runs answered 201, ` +
        `${parked.length} parks, ${receiver.received.length} webhook messages (${resent} sent again ` +
        `under the same id after a kill), ${((Date.now() - started) / 1000).toFixed(1)} s, ${found.length} violation(s)`,
    );
    return found.map((violation) => `${name}: ${violation}`);
  } finally {
    for (const kernel of kernels) await kernel.stop();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
