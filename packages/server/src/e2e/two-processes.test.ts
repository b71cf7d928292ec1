import { type ChildProcess, spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { type Client, client, waitFor } from '../testing/harness.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';

const skip = await postgresSkipReason();
if (skip) console.warn(`[airlock tests] skipping two kernel processes on one PostgreSQL: ${skip}`);

interface Served {
  child: ChildProcess;
  url: string;
  stderr: string;
}

/** Spawns a real `airlock serve` process on the database and waits until it listens. */
async function serve(databaseUrl: string): Promise<Served> {
  const child = spawn(
    process.execPath,
    [
      ...CLI_NODE_ARGS,
      'serve',
      '--port',
      '0',
      '--database-url',
      databaseUrl,
      '--park-ttl',
      '1500ms',
      '--no-demo',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATABASE_URL: '' } },
  );
  let stdout = '';
  const served: Served = { child, url: '', stderr: '' };
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    served.stderr += chunk;
  });
  served.url = await waitFor(
    async () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout)?.[1] ?? null,
    {
      what: 'the kernel process to listen',
      timeoutMs: 30_000,
    },
  );
  return served;
}

const parkOne = {
  approval_mode: 'ask',
  input: 'x',
  provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'done' }] },
};
const grantOne = {
  approval_mode: 'bypass',
  input: 'x',
  provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'build' }] }, { final: 'done' }] },
};

describe.skipIf(skip !== null)(
  'two `airlock serve` processes starting together on a fresh database',
  () => {
    it('create one local workspace between them, and only one prints tokens', async () => {
      const databaseUrl = await freshPostgresDatabase();
      const both = await Promise.all([serve(databaseUrl), serve(databaseUrl)]);
      try {
        await waitFor(async () => both.some((s) => s.stderr.includes('member token')), {
          what: 'a first-start banner',
        });
        // Both ensured the workspace before listening's banner; give stderr a moment to arrive.
        await new Promise((settle) => setTimeout(settle, 500));
        const banners = both.map((s) => s.stderr.includes('member token'));
        expect(banners.filter(Boolean)).toHaveLength(1);
        const database = new pg.Client({ connectionString: databaseUrl });
        await database.connect();
        const { rows } = await database.query('select count(*)::int as count from workspaces');
        await database.end();
        expect(rows[0].count).toBe(1);
      } finally {
        for (const { child } of both) child.kill('SIGTERM');
      }
    }, 60_000);
  },
);

describe.skipIf(skip !== null)('two `airlock serve` processes on one PostgreSQL database', () => {
  const served: Served[] = [];
  let ws: string;
  let agents: Client[];
  let members: Client[];
  let executors: Client[];

  beforeAll(async () => {
    const databaseUrl = await freshPostgresDatabase();
    // The first process creates the local workspace and prints its tokens; the second finds it.
    served.push(await serve(databaseUrl));
    const banner = await waitFor(async () =>
      served[0]!.stderr.includes('member token') ? served[0]!.stderr : null,
    );
    served.push(await serve(databaseUrl));
    const pick = (pattern: RegExp) => pattern.exec(banner)![1]!;
    ws = `/api/v1/workspaces/${pick(/workspace\s+(\S+)/)}`;
    const urls = served.map((s) => s.url);
    agents = urls.map((url) => client(url, pick(/agent token\s+(\S+)/)));
    members = urls.map((url) => client(url, pick(/member token\s+(\S+)/)));
    executors = urls.map((url) => client(url, pick(/executor token\s+(\S+)/)));
  }, 90_000);

  afterAll(async () => {
    for (const { child } of served) child.kill('SIGTERM');
  });

  it('fires each park clock exactly once, whichever process sweeps it', async () => {
    const runIds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const created = await agents[i % 2]!.post(`${ws}/runs`, parkOne);
      expect(created.status).toBe(201);
      runIds.push(created.body.id);
    }
    for (const runId of runIds) {
      const task = await waitFor(
        async () => {
          const read = await members[0]!.get(`${ws}/runs/${runId}/tasks/t1`);
          return read.body.state === 'timed_out' ? read.body : null;
        },
        { what: `the park of ${runId} to expire`, timeoutMs: 20_000 },
      );
      expect(task.error.code).toBe('approval_expired');
      const events = await members[1]!.get(`${ws}/runs/${runId}/events?limit=1000`);
      const expired = events.body.events.filter(
        (event: { type: string; task_key: string | null }) =>
          event.type === 'task.expired' && event.task_key === 't1',
      );
      expect(expired).toHaveLength(1);
    }
  }, 60_000);

  it('never hands one row to two executors claiming through both processes at once', async () => {
    const runIds: string[] = [];
    for (let i = 0; i < 16; i++)
      runIds.push((await agents[i % 2]!.post(`${ws}/runs`, grantOne)).body.id);
    await waitFor(
      async () => {
        const inbox = await executors[0]!.get('/executor_api/v1/inbox');
        const tools = inbox.body.items.filter((item: { kind: string }) => item.kind === 'tool');
        return tools.length >= 16 ? tools : null;
      },
      { what: 'sixteen runnable rows' },
    );
    const claimed: string[] = [];
    const worker = async (executor: Client) => {
      for (;;) {
        const answer = await executor.post('/executor_api/v1/claim', { lease_ms: 60_000 });
        expect(answer.status).toBe(200);
        if (answer.body.claim === null) return;
        claimed.push(`${answer.body.claim.task.run_id}/${answer.body.claim.task.key}`);
      }
    };
    await Promise.all([
      worker(executors[0]!),
      worker(executors[1]!),
      worker(executors[0]!),
      worker(executors[1]!),
    ]);
    expect(new Set(claimed).size).toBe(claimed.length);
    for (const runId of runIds) expect(claimed).toContain(`${runId}/t1`);
  }, 60_000);
});
