/**
 * Benchmark: how long a park takes to reach a webhook receiver through the
 * notification outbox, beside how long it takes to reach a feed subscriber,
 * in the same run. A real `airlock serve` process (SQLite, or PostgreSQL
 * with --backend postgres and AIRLOCK_TEST_DATABASE_URL) is offered parks
 * at a fixed rate; a loopback webhook receiver and a WebSocket feed client
 * in this process time each park from its event's commit time.
 *
 *   pnpm bench:notify [-- --rate 100 --seconds 10 --backend sqlite|postgres]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { createCredential, createWorkspace } from '../src/store/accounts.js';
import { createAgentApplication } from '../src/store/applications.js';
import { Store } from '../src/store/store.js';
import { freshDatabase, packageDir } from './server-process.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '10' },
    backend: { type: 'string', default: 'sqlite' },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-notify-'));
  const databaseUrl =
    values.backend === 'postgres' && process.env.AIRLOCK_TEST_DATABASE_URL
      ? await freshDatabase(process.env.AIRLOCK_TEST_DATABASE_URL)
      : null;
  if (values.backend === 'postgres' && !databaseUrl) {
    throw new Error('--backend postgres needs AIRLOCK_TEST_DATABASE_URL');
  }
  const location = databaseUrl ? { databaseUrl } : { dataDir: dir };
  const store = await Store.open(location);
  const workspace = await createWorkspace(store, 'bench');
  const app = await createAgentApplication(store, { workspaceId: workspace.id, name: 'bench' });
  const token = async (kind: 'agent' | 'member') =>
    (await createCredential(store, { workspaceId: workspace.id, kind, agentApplicationId: app.id }))
      .token;
  const agent = await token('agent');
  const member = await token('member');
  await store.close();

  const webhookAt = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrived = Date.now();
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!webhookAt.has(payload.data.run.id)) webhookAt.set(payload.data.run.id, arrived);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const file = join(dir, 'notifications.json');
  writeFileSync(
    file,
    JSON.stringify({
      channels: [
        {
          name: 'bench',
          kind: 'webhook',
          workspace: workspace.id,
          url: receiverUrl,
          secrets: [SECRET],
        },
      ],
    }),
  );
  const args = [join(packageDir, 'dist/cli.js'), 'serve', '--port', '0', '--no-demo'];
  args.push('--notifications', file, '--rate-limit', 'off', '--log-level', 'info');
  args.push(...(databaseUrl ? ['--database-url', databaseUrl] : ['--data-dir', dir]));
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: '' },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let log = '';
    const read = (chunk: Buffer) => {
      log += chunk;
      const line = log.split('\n').find((l) => l.includes('airlock kernel listening'));
      if (line) resolve(JSON.parse(line).url);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${log}`)));
  });
  const ws = `/api/v1/workspaces/${workspace.id}`;
  const parkedAt = new Map<string, number>();
  const feedAt = new Map<string, number>();
  const feed = new WebSocket(`${url.replace(/^http/, 'ws')}${ws}/feed?after=0`, {
    headers: { authorization: `Bearer ${member}` },
  });
  feed.on('message', (data) => {
    const arrived = Date.now();
    const message = JSON.parse(data.toString());
    if (message.type === 'event' && message.event.type === 'task.parked') {
      parkedAt.set(message.event.run_id, message.event.created_at);
      feedAt.set(message.event.run_id, arrived);
    }
  });
  await new Promise((resolve) => feed.once('open', resolve));

  const total = Math.round(rate * seconds);
  const started = Date.now();
  const posts: Promise<unknown>[] = [];
  let failed = 0;
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    posts.push(
      fetch(`${url}${ws}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agent}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          approval_mode: 'ask',
          input: 'bench',
          provider: {
            kind: 'scripted',
            rounds: [
              { tool_calls: [{ name: 'bash', input: { command: `rm -rf /tmp/b${i}` } }] },
              { final: 'x' },
            ],
          },
        }),
      })
        .then(async (response) => {
          await response.arrayBuffer();
          if (response.status !== 201) failed += 1;
        })
        .catch(() => {
          failed += 1;
        }),
    );
  }
  await Promise.all(posts);
  const offeredFor = (Date.now() - started) / 1000;
  const drainBy = Date.now() + 30_000;
  while (webhookAt.size < parkedAt.size || parkedAt.size < total - failed) {
    if (Date.now() > drainBy) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const toFeed: number[] = [];
  const toWebhook: number[] = [];
  for (const [run, at] of parkedAt) {
    toFeed.push(feedAt.get(run)! - at);
    const hooked = webhookAt.get(run);
    if (hooked !== undefined) toWebhook.push(hooked - at);
  }
  toFeed.sort((a, b) => a - b);
  toWebhook.sort((a, b) => a - b);
  console.log(
    `bench:notify ${databaseUrl ? 'postgres' : 'sqlite'}: ${total} parks offered at ${rate}/s ` +
      `(sent in ${offeredFor.toFixed(1)} s, ${failed} refused or lost), ${parkedAt.size} parks on the feed, ` +
      `${toWebhook.length} webhooks delivered`,
  );
  console.log('measure                      p50 ms   p99 ms   max ms');
  for (const [name, list] of [
    ['park -> feed event', toFeed],
    ['park -> webhook delivered', toWebhook],
  ] as const) {
    console.log(
      `${name.padEnd(28)} ${String(percentile(list, 50)).padStart(6)}   ${String(percentile(list, 99)).padStart(6)}   ${String(list.at(-1) ?? Number.NaN).padStart(6)}`,
    );
  }
  feed.close();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
