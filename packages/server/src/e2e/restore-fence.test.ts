import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { type Client, client, waitFor } from '../testing/harness.js';
import { runLocalCli } from '../testing/operator-cli.js';
import { freshPostgresDatabase } from '../testing/postgres.js';
import { type Backend, backends } from '../testing/stores.js';
import { type WorkspaceTokens, workspaceWithTokens } from '../testing/workspace-tokens.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

const run = promisify(execFile);
const all = await backends();
const root = mkdtempSync(join(tmpdir(), 'airlock-restore-fence-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A store restored from a backup: where it is, as `startAirlock` and the CLI take it. */
type Restored = { dataDir: string } | { databaseUrl: string };

/** A kernel serving a fresh store, with a workspace and its tokens. */
interface Served {
  airlock: Airlock;
  source: Restored;
  tokens: WorkspaceTokens;
  ws: string;
  agent: Client;
  executor: Client;
  member: Client;
}

async function serveFresh(backend: Backend['name']): Promise<Served> {
  const source: Restored =
    backend === 'sqlite'
      ? { dataDir: mkdtempSync(join(root, 'source-')) }
      : { databaseUrl: await freshPostgresDatabase() };
  const airlock = await serve(source);
  const { workspaceId, tokens } = await workspaceWithTokens(airlock.store, 'fence');
  return {
    airlock,
    source,
    tokens,
    ws: `/api/v1/workspaces/${workspaceId}`,
    agent: client(airlock.url, tokens.agent),
    executor: client(airlock.url, tokens.executor),
    member: client(airlock.url, tokens.member),
  };
}

/** A backup and how to restore it into a new store (`airlock restore` does that for SQLite). */
interface Backup {
  file: string;
  /** SQLite: a new data directory for `airlock restore`; PostgreSQL: a new database, pg_restored. */
  restoreInto(name: string): Promise<Restored>;
}

/** Backs a served store up while it serves, with the tools docs/backup-restore.md names. */
async function backupOf(served: Served, name: string): Promise<Backup> {
  if ('dataDir' in served.source) {
    const file = join(root, `${name}.sqlite`);
    const made = await runLocalCli(['backup', file, '--data-dir', served.source.dataDir]);
    expect(made.code).toBe(0);
    return { file, restoreInto: async (dir) => ({ dataDir: join(root, dir) }) };
  }
  const file = join(root, `${name}.dump`);
  await run('pg_dump', [
    '--format=custom',
    '--no-owner',
    '--file',
    file,
    served.source.databaseUrl,
  ]);
  return {
    file,
    async restoreInto() {
      const target = await freshPostgresDatabase();
      await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', target, file]);
      return { databaseUrl: target };
    },
  };
}

/**
 * The state at the backup: a run whose call t1 an executor has claimed and
 * whose call t2 is granted, unclaimed. After the backup both run (t1 is
 * committed, t2 claimed and committed), which a restore then forgets.
 */
async function backupWhileCallsAreOut(
  backend: Backend['name'],
  name: string,
): Promise<{ served: Served; runId: string; backup: Backup }> {
  const served = await serveFresh(backend);
  const { agent, executor, member, ws } = served;
  const created = await agent.post(`${ws}/runs`, {
    approval_mode: 'bypass',
    input: 'release',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'deploy' }, { name: 'drop_table' }] }, { final: 'done' }],
    },
  });
  const runId = created.body.id as string;
  const tasks = `/executor_api/v1/runs/${runId}/tasks`;
  await waitFor(
    async () => (await member.get(`${ws}/runs/${runId}/tasks/t2`)).body.state === 'runnable',
  );
  // A lease far past the case's length: were it to lapse (the 30 s default did, in a case slowed
  // to 75 s on a loaded machine), t1 would be claimable again in the store restored unfenced.
  const claimed = await executor.post(`${tasks}/t1/claim`, { lease_ms: 3_600_000 });
  expect(claimed.status).toBe(200);
  const backup = await backupOf(served, name);

  const commit = (key: string, claimId: string) =>
    executor.post(`${tasks}/${key}/commit`, { claim_id: claimId, outcome: 'succeeded' });
  expect((await commit('t1', claimed.body.claim_id)).status).toBe(200);
  const second = await executor.post(`${tasks}/t2/claim`, {});
  expect((await commit('t2', second.body.claim_id)).status).toBe(200);
  await served.airlock.close();
  return { served, runId, backup };
}

function storeFlags(restored: Restored): string[] {
  return 'dataDir' in restored
    ? ['--data-dir', restored.dataDir]
    : ['--database-url', restored.databaseUrl];
}

async function serve(restored: Restored): Promise<Airlock> {
  return startAirlock({
    ...restored,
    rateLimit: null,
    authFailureLimit: null,
    sweepIntervalMs: 50,
    ...('databaseUrl' in restored
      ? { retention: { exportDir: mkdtempSync(join(tmpdir(), 'airlock-exports-')) } }
      : {}),
  });
}

/** Waits past a few clock sweeps, then asks for the next claimable call. */
async function nextClaim(executor: Client): Promise<Loose> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return (await executor.post('/executor_api/v1/claim', {})).body.claim;
}

/**
 * Each test starts kernels and CLI processes one after another (a backup, a restore, fences, two
 * kernels): 28 to 30 s on a loaded 2-core machine, where one timed out at the default 30 s.
 */
const SLOW = { timeout: 120_000 };

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`restore fencing (${backend.name})`, SLOW, () => {
    it('fences the calls granted or claimed at the backup: none is claimed again until a person retries it', async () => {
      const { served, runId, backup } = await backupWhileCallsAreOut(backend.name, 'fenced');
      const { tokens, ws } = served;
      const restored = await backup.restoreInto('fenced');
      if ('dataDir' in restored) {
        const done = await runLocalCli(['restore', backup.file, ...storeFlags(restored)]);
        expect(done.code).toBe(0);
        expect(done.stderr).toContain('fenced 2 call(s) in 1 run(s)');
        expect(done.stderr).toContain(`\t${runId}\tt1\ttool\tdeploy\tclaimed\n`);
        expect(done.stderr).toContain(`\t${runId}\tt2\ttool\tdrop_table\trunnable\n`);
      } else {
        const done = await runLocalCli(['fence', ...storeFlags(restored)]);
        expect(done.code).toBe(0);
        const lines = done.stdout.split('\n').filter(Boolean);
        expect(lines.map((line) => line.split('\t').slice(1))).toEqual([
          [runId, 't1', 'tool', 'deploy', 'claimed'],
          [runId, 't2', 'tool', 'drop_table', 'runnable'],
        ]);
      }
      // Fencing again finds nothing left to fence.
      const again = await runLocalCli(['fence', ...storeFlags(restored)]);
      expect(again).toMatchObject({ code: 0, stdout: '' });
      expect(again.stderr).toContain('fenced nothing');

      const airlock = await serve(restored);
      try {
        const member = client(airlock.url, tokens.member);
        const executor = client(airlock.url, tokens.executor);
        expect(await nextClaim(executor)).toBeNull();
        for (const key of ['t1', 't2']) {
          const task = (await member.get(`${ws}/runs/${runId}/tasks/${key}`)).body;
          expect(task).toMatchObject({ state: 'failed', error: { code: 'outcome_unknown' } });
        }
        expect((await member.get(`${ws}/runs/${runId}`)).body).toMatchObject({
          state: 'running',
          attention: [{ reason: 'failure_hold', blocked_task_keys: ['t1', 't2'] }],
        });
        // A person who checked that drop_table did not run retries it: only then is it claimed.
        const retried = await member.post(`${ws}/runs/${runId}/tasks/t2/retry`);
        expect(retried.body).toMatchObject({ state: 'runnable', error: null });
        const claim = await nextClaim(executor);
        expect(claim.task).toMatchObject({ run_id: runId, key: 't2' });
        expect(await nextClaim(executor)).toBeNull();
      } finally {
        await airlock.close();
      }
    });
  });
}

const postgres = all.find((backend) => backend.name === 'postgres');

describe.skipIf(!postgres || postgres.skip !== null)('a pg_restore nobody fenced', SLOW, () => {
  it('is fenced by the first kernel that starts on it, and only once', async () => {
    const { served, runId, backup } = await backupWhileCallsAreOut('postgres', 'unattended');
    const restored = await backup.restoreInto('unattended');
    const first = await serve(restored);
    let claimed: Loose;
    try {
      const member = client(first.url, served.tokens.member);
      const executor = client(first.url, served.tokens.executor);
      expect(await nextClaim(executor)).toBeNull();
      for (const key of ['t1', 't2']) {
        const task = (await member.get(`${served.ws}/runs/${runId}/tasks/${key}`)).body;
        expect(task).toMatchObject({ state: 'failed', error: { code: 'outcome_unknown' } });
      }
      await member.post(`${served.ws}/runs/${runId}/tasks/t2/retry`);
      claimed = await nextClaim(executor);
      expect(claimed.task).toMatchObject({ run_id: runId, key: 't2' });
    } finally {
      await first.close();
    }
    // The next start is on the database it recorded: the claim made since is no restore's to fence.
    const second = await serve(restored);
    try {
      const member = client(second.url, served.tokens.member);
      const t2 = (await member.get(`${served.ws}/runs/${runId}/tasks/t2`)).body;
      expect(t2).toMatchObject({ state: 'claimed', error: null });
    } finally {
      await second.close();
    }
  });
});

describe('restore --no-fence, and fence refusals (sqlite)', SLOW, () => {
  it('keeps the calls as the backup has them: the granted one is claimed again at once', async () => {
    const { served, runId, backup } = await backupWhileCallsAreOut('sqlite', 'unfenced');
    const restored = await backup.restoreInto('unfenced');
    const done = await runLocalCli(['restore', backup.file, '--no-fence', ...storeFlags(restored)]);
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('not fenced (--no-fence)');
    const airlock = await serve(restored);
    try {
      const claim = await nextClaim(client(airlock.url, served.tokens.executor));
      expect(claim.task).toMatchObject({ run_id: runId, key: 't2' });
    } finally {
      await airlock.close();
    }
  });

  it('refuses a data directory a kernel serves, and one with no store', async () => {
    const served = await serveFresh('sqlite');
    try {
      const refused = await runLocalCli(['fence', ...storeFlags(served.source)]);
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toMatch(
        /^airlock fence: kernel_running: a kernel \(pid \d+\) is serving /,
      );
    } finally {
      await served.airlock.close();
    }
    const missing = join(root, 'no-store');
    const none = await runLocalCli(['fence', '--data-dir', missing]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^airlock fence: store_not_found: no Airlock store in /);
    expect(existsSync(missing)).toBe(false);
  });

  it('refuses a directory with no store, leaving it empty, and a data directory that is a file, with a code', async () => {
    const empty = join(root, 'empty-dir');
    mkdirSync(empty);
    const none = await runLocalCli(['fence', '--data-dir', empty]);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toMatch(/^airlock fence: store_not_found: no Airlock store in /);
    // Not even the lock's file: the refusal changed nothing.
    expect(readdirSync(empty)).toEqual([]);

    const file = join(root, 'a-file');
    writeFileSync(file, 'x\n');
    const notDir = await runLocalCli(['fence', '--data-dir', file]);
    expect(notDir).toMatchObject({ code: 1, stdout: '' });
    expect(notDir.stderr).toBe(
      `airlock fence: data_dir_not_a_directory: the data directory ${file} is a file, not a directory; check --data-dir (or AIRLOCK_DATA_DIR)\n`,
    );
    const under = join(file, 'dd');
    const underFile = await runLocalCli(['fence', '--data-dir', under]);
    expect(underFile.code).toBe(1);
    expect(underFile.stderr).toMatch(
      /^airlock fence: data_dir_not_a_directory: the data directory .* lies under a file, not a directory;/,
    );
  });
});
