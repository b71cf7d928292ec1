/**
 * Benchmark: park-then-approve round trips through REST, against a real
 * `airlock serve` process (SQLite, and PostgreSQL when a URL is given).
 *
 *   pnpm --filter @airlock/server bench [-- --seconds 10 --concurrency 16]
 *
 * PostgreSQL runs when AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL is set.
 * Two round-trip shapes are measured:
 *   model   POST /runs (a scripted run whose one call parks) then POST .../approve
 *   author  POST .../tasks (an author row an `ask` rule parks) then POST .../approve
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seconds: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '16' },
    backend: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

interface Server {
  child: ChildProcess;
  url: string;
  ws: string;
  agent: string;
  member: string;
  cleanup(): Promise<void>;
}

async function freshDatabase(base: string): Promise<string> {
  const url = new URL(base);
  const name = `airlock_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  url.pathname = `/${name}`;
  return url.toString();
}

async function startServer(databaseUrl: string | null): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-bench-'));
  const args = [join(packageDir, 'dist/cli.js'), 'serve', '--port', '0', '--data-dir', dataDir];
  args.push('--no-demo', '--log-level', 'warn');
  if (databaseUrl) args.push('--database-url', databaseUrl);
  const nodeArgs = (process.env.AIRLOCK_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    stdio: ['ignore', 'inherit', 'pipe'],
    env: { ...process.env, DATABASE_URL: '' },
  });
  let banner = '';
  await new Promise<void>((done, fail) => {
    child.stderr!.on('data', (chunk) => {
      banner += chunk;
      if (banner.includes('member token')) done();
    });
    child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${banner}`)));
  });
  const pick = (re: RegExp) => re.exec(banner)![1]!;
  return {
    child,
    url: pick(/ready at (http:\/\/\S+)/),
    ws: `/api/v1/workspaces/${pick(/workspace\s+(\S+)/)}`,
    agent: pick(/agent token\s+(\S+)/),
    member: pick(/member token\s+(\S+)/),
    async cleanup() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The fields the benchmark reads from answers. */
interface Answer {
  id: string;
  key: string;
  state: string;
  attention: { blocked_task_keys: string[] }[];
}

/**
 * One keep-alive connection per client: raw `http.request` is much lighter on
 * the shared CPUs than fetch (undici), and it is still real HTTP over loopback.
 */
const keepAlive = new Agent({ keepAlive: true, maxSockets: 1024 });

function post(server: Server, token: string, path: string, body: unknown): Promise<Answer> {
  const payload = JSON.stringify(body);
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent: keepAlive,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((response.statusCode ?? 500) >= 300) {
            reject(new Error(`${path}: ${response.statusCode} ${text}`));
            return;
          }
          resolve(JSON.parse(text) as Answer);
        });
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

type Shape = 'model' | 'author';

async function roundTrip(server: Server, shape: Shape, authorRun: string): Promise<void> {
  if (shape === 'model') {
    const run = await post(server, server.agent, `${server.ws}/runs`, {
      approval_mode: 'ask',
      input: 'bench',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] }, { final: 'ok' }],
      },
    });
    const key = run.attention[0]?.blocked_task_keys[0];
    await post(server, server.member, `${server.ws}/runs/${run.id}/tasks/${key}/approve`, {});
    return;
  }
  const task = await post(server, server.member, `${server.ws}/runs/${authorRun}/tasks`, {
    tool_name: 'deploy',
    tool_input: { env: 'prod' },
  });
  if (task.state !== 'needs_approval') throw new Error(`expected a park, got ${task.state}`);
  await post(server, server.member, `${server.ws}/runs/${authorRun}/tasks/${task.key}/approve`, {});
}

/** CPU time (user, system) the server process has used in ms, from /proc; NaN where there is none. */
function serverCpuMs(server: Server): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${server.child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function measure(server: Server, shape: Shape) {
  const authorRun = (
    await post(server, server.agent, `${server.ws}/runs`, {
      approval_mode: 'bypass',
      approval_rules: [{ tool: 'deploy', verdict: 'ask', origin: 'author' }],
      input: 'bench',
      provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'hold' }] }, { final: 'x' }] },
    })
  ).id as string;
  const latencies: number[] = [];
  const runFor = async (ms: number, record: boolean) => {
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const start = performance.now();
          await roundTrip(server, shape, authorRun);
          if (record) latencies.push(performance.now() - start);
        }
      }),
    );
  };
  await runFor(1000, false);
  const cpuStart = serverCpuMs(server);
  const ownStart = process.cpuUsage();
  const started = performance.now();
  await runFor(seconds * 1000, true);
  const elapsed = (performance.now() - started) / 1000;
  const cpuEnd = serverCpuMs(server);
  const own = process.cpuUsage(ownStart);
  const perTrip = (ms: number) => (ms * 1000) / Math.max(1, latencies.length);
  latencies.sort((a, b) => a - b);
  return {
    roundTrips: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    serverCpuUs: perTrip(cpuEnd.user + cpuEnd.system - cpuStart.user - cpuStart.system),
    serverSystemUs: perTrip(cpuEnd.system - cpuStart.system),
    clientCpuUs: perTrip((own.user + own.system) / 1000),
  };
}

async function main() {
  execFileSync(join(packageDir, '../../node_modules/.bin/tsc'), ['-b', packageDir], {
    stdio: 'inherit',
  });
  const pgUrl = process.env.AIRLOCK_BENCH_DATABASE_URL || process.env.AIRLOCK_TEST_DATABASE_URL;
  const backends: ('sqlite' | 'postgres')[] = values.backend
    ? [values.backend as 'sqlite' | 'postgres']
    : pgUrl
      ? ['sqlite', 'postgres']
      : ['sqlite'];
  console.log(
    `park-then-approve round trips over REST: ${concurrency} concurrent clients, ${seconds}s per case, ` +
      `${cpus().length} CPUs, Node ${process.version}`,
  );
  if (!pgUrl)
    console.log(
      '(PostgreSQL skipped: set AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL)',
    );
  console.log(
    '| store | round trip | round trips/s | p50 ms | p99 ms | server CPU per round trip (of it system) | load generator CPU |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const backend of backends) {
    for (const shape of ['model', 'author'] as const) {
      const server = await startServer(backend === 'postgres' ? await freshDatabase(pgUrl!) : null);
      try {
        const r = await measure(server, shape);
        const label =
          shape === 'model'
            ? 'run create (model row parks) + approve'
            : 'author row parks + approve';
        console.log(
          `| ${backend} | ${label} | ${r.perSecond.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ` +
            `${r.serverCpuUs.toFixed(0)} µs (${r.serverSystemUs.toFixed(0)}) | ${r.clientCpuUs.toFixed(0)} µs |`,
        );
      } finally {
        await server.cleanup();
      }
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
