import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { storeBeforeMigration } from '../testing/older-schema.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import type { StoreLocation } from './backend.js';
import { Store } from './store.js';
import { isAgentsOwnCall } from './task-inbox.js';

/**
 * A store made by a kernel from before `runs.loop` (every migration up to
 * 0017) keeps telling its runs apart after the upgrade: a run of a hooked
 * session's conversation is `hooked` (its calls stay the agent's), a gateway
 * run `gateway`, any other `kernel`.
 */

const root = mkdtempSync(join(tmpdir(), 'airlock-run-loops-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pgSkip = await postgresSkipReason();

const PROVIDERS = {
  run_hooked: '{"kind":"gateway","client":"claude-code hooks"}',
  run_gateway: '{"client":"mcp 1.0","kind":"gateway"}',
  run_scripted: '{"kind":"scripted","rounds":[{"final":"done"}]}',
};

/** Applies the migrations named before `0018_run_loops`, as an older kernel did, and writes runs. */
async function migrateAsBeforeLoops(location: StoreLocation): Promise<void> {
  await storeBeforeMigration(location, '0018', async (db) => {
    for (const id of ['conv_hooked', 'conv_plain']) {
      await sql`insert into conversations (id, workspace_id, agent_application_id, created_at)
      values (${id}, 'ws_old', 'app_old', 1)`.execute(db);
    }
    await sql`insert into hook_sessions (agent_application_id, agent, session_id, workspace_id, conversation_id, created_at)
    values ('app_old', 'claude-code', 's-1', 'ws_old', 'conv_hooked', 1)`.execute(db);
    for (const [id, provider] of Object.entries(PROVIDERS)) {
      const conversation = id === 'run_hooked' ? 'conv_hooked' : 'conv_plain';
      await sql`insert into runs (id, workspace_id, agent_application_id, conversation_id, state, phase,
      approval_mode, approval_rules, tool_aliases, provider, input, on_failure, round, task_counter,
      created_by, created_at, updated_at)
      values (${id}, 'ws_old', 'app_old', ${conversation}, 'running', 'tools', 'bypass', '[]', '{}',
      ${provider}, '{"content":"x"}', 'continue', 1, 1, 'agent:app_old', 1, 1)`.execute(db);
      await sql`insert into tasks (workspace_id, run_id, key, round, origin, kind, state, tool_name,
      tool_input, on_failure, attempts, created_at, updated_at)
      values ('ws_old', ${id}, 't1', 1, 'model', 'tool', 'runnable', 'Bash', '{}', 'continue', 0, 1, 1)`.execute(
        db,
      );
    }
  });
}

async function expectLoopsAfterUpgrade(location: StoreLocation): Promise<void> {
  await migrateAsBeforeLoops(location);
  const store = await Store.open(location);
  try {
    const runs = await store.db.selectFrom('runs').select(['id', 'loop']).orderBy('id').execute();
    expect(runs).toEqual([
      { id: 'run_gateway', loop: 'gateway' },
      { id: 'run_hooked', loop: 'hooked' },
      { id: 'run_scripted', loop: 'kernel' },
    ]);
    const own = async (runId: string) =>
      isAgentsOwnCall(store, { workspaceId: 'ws_old', runId, key: 't1' });
    expect([await own('run_hooked'), await own('run_gateway'), await own('run_scripted')]).toEqual([
      true,
      false,
      false,
    ]);
  } finally {
    await store.close();
  }
}

describe('the run loops migration', () => {
  it('marks the runs of an older SQLite store by whose loop they ran', async () => {
    await expectLoopsAfterUpgrade({ dataDir: join(root, 'sqlite') });
  });

  it.skipIf(pgSkip !== null)(
    'marks the runs of an older PostgreSQL store by whose loop they ran',
    async () => {
      await expectLoopsAfterUpgrade({ databaseUrl: await freshPostgresDatabase() });
    },
  );
});
