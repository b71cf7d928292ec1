import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../../airlock.js';
import {
  addMember,
  type Client,
  client,
  type Deployment,
  deploy,
  putOverlay,
} from '../../testing/harness.js';
import { type KernelProcess, startKernelProcess } from '../../testing/kernel-process.js';
import { freshPostgresDatabase, postgresSkipReason } from '../../testing/postgres.js';
import { backends } from '../../testing/stores.js';
import { workspaceWithTokens } from '../../testing/workspace-tokens.js';

/**
 * Counts the members' user documents the store hands this process in full
 * (rows of `scope` user with their `document` text), whichever driver reads
 * them, until `stop`: what the stage costs a workspace of many members.
 */
function countUserDocumentsRead(): { count: () => number; stop: () => void } {
  let read = 0;
  const tally = (rows: unknown, columns?: string[]) => {
    if (!Array.isArray(rows)) return;
    for (const row of rows as unknown[]) {
      // better-sqlite3 answers the kernel's statements as arrays, in the order of their columns.
      const named = Array.isArray(row)
        ? Object.fromEntries((columns ?? []).map((column, i) => [column, row[i]]))
        : (row as { scope?: unknown; document?: unknown });
      if (named?.scope === 'user' && typeof named.document === 'string') read += 1;
    }
  };
  const probe = new SqliteDatabase(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as {
    all: (...args: unknown[]) => unknown;
  };
  probe.close();
  const all = statement.all;
  statement.all = function (this: { columns(): { name: string }[] }, ...args: unknown[]) {
    const rows = all.apply(this, args);
    tally(
      rows,
      this.columns().map((column) => column.name),
    );
    return rows;
  };
  const pgClient = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
  const query = pgClient.query;
  pgClient.query = function (this: unknown, ...args: unknown[]) {
    const answer = query.apply(this, args);
    if (answer instanceof Promise) {
      return answer.then((result: { rows?: unknown }) => {
        tally(result?.rows);
        return result;
      });
    }
    return answer;
  };
  return {
    count: () => read,
    stop() {
      statement.all = all;
      pgClient.query = query;
    },
  };
}

const all = await backends();
const pgSkip = await postgresSkipReason();

/** An admin's guardrail over `make deploy`, with `reason`; null for a document with none. */
function guardrailDocument(reason: string | null) {
  const ordinary = { verdict: 'ask', tools: ['bash'], argument_patterns: { '/command': '*sudo*' } };
  const rules =
    reason === null
      ? [ordinary]
      : [
          ordinary,
          {
            verdict: 'deny',
            guardrail: true,
            tools: ['bash'],
            argument_patterns: { '/command': '*make deploy*' },
            reason,
          },
        ];
  return [{ ruleSetId: 'supervised', rules }];
}

/** The calls of one gateway run (no rule set: only the guardrails bind it), one at a time. */
function gatewayCalls(agent: Client, ws: string, layers: Record<string, unknown> = {}) {
  let runId: string | undefined;
  let next = 0;
  return async (command: string) => {
    if (runId === undefined) {
      const created = await agent.post(`${ws}/runs`, {
        approval_mode: 'bypass',
        input: 'x',
        provider: { kind: 'gateway', client: 'test 1.0' },
        ...layers,
      });
      expect(created.status).toBe(201);
      runId = created.body.id as string;
    }
    next += 1;
    const submitted = await agent.post(`${ws}/runs/${runId}/calls`, {
      calls: [{ name: 'bash', input: { command }, id: `c${next}` }],
    });
    expect(submitted.status).toBe(201);
    const key = submitted.body.tasks[0].key as string;
    return (await agent.get(`${ws}/runs/${runId}/tasks/${key}`)).body as {
      state: string;
      error: { code: string; detail: string } | null;
    };
  };
}

/** Whether a call was refused with a guardrail's reason, granted otherwise. */
function refusedWith(reason: string) {
  return { state: 'failed', error: { code: 'approval_denied', detail: reason } };
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`the stage's guardrails (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d.close();
    });

    it('binds an added, changed or lifted guardrail at the next call, reading the documents only then', async () => {
      d = await deploy(backend);
      // Members whose user documents hold ordinary rules: the guardrails' version counts them.
      for (const label of ['Ana', 'Bo']) {
        const member = await addMember(d, label);
        const own = `${d.ws}/overlays/user/me`;
        expect((await putOverlay(member.client, own, guardrailDocument(null))).status).toBe(200);
      }
      const admin = `${d.ws}/overlays/user/me`;
      const put = async (reason: string | null) =>
        expect((await putOverlay(d.member, admin, guardrailDocument(reason))).status).toBe(200);
      const call = gatewayCalls(d.agent, d.ws);
      expect((await call('make deploy')).state).toBe('runnable');
      // Each call, and the documents it read in full (the agent's run has no user of its own).
      const counted = async (command: string) => {
        const reads = countUserDocumentsRead();
        try {
          return { row: await call(command), documents: reads.count() };
        } finally {
          reads.stop();
        }
      };
      // The digests did not change: no member's document is read again.
      expect(await counted('make deploy')).toMatchObject({
        row: { state: 'runnable' },
        documents: 0,
      });
      expect(await counted('ls')).toMatchObject({ row: { state: 'runnable' }, documents: 0 });

      await put('deploys are frozen');
      // Changed: the next call reads the three documents again, and the guardrail binds it.
      expect(await counted('make deploy')).toMatchObject({
        row: refusedWith('deploys are frozen'),
        documents: 3,
      });
      expect(await counted('make deploy')).toMatchObject({
        row: refusedWith('deploys are frozen'),
        documents: 0,
      });

      await put('ask the release lead');
      expect((await counted('make deploy')).row).toMatchObject(refusedWith('ask the release lead'));

      await put(null);
      expect((await counted('make deploy')).row.state).toBe('runnable');
    });

    it("applies the ordinary rules of the run's own member, and no other member's", async () => {
      d = await deploy(backend);
      const rules = (pattern: string, reason: string) => [
        {
          ruleSetId: 'team',
          rules: [
            {
              verdict: 'deny',
              tools: ['bash'],
              argument_patterns: { '/command': pattern },
              reason,
            },
          ],
        },
      ];
      const ana = await addMember(d, 'Ana');
      const own = `${d.ws}/overlays/user/me`;
      expect((await putOverlay(ana.client, own, rules('*ls*', "Ana's rule"))).status).toBe(200);
      expect((await putOverlay(d.member, own, rules('*make deploy*', 'my own rule'))).status).toBe(
        200,
      );
      // A member's own standalone run, under a set that allows bash: its member's rules come first.
      const call = gatewayCalls(d.member, d.ws, {
        permission_rule_set: 'team',
        custom_rule_sets: [{ id: 'team', rules: [{ verdict: 'allow', tools: ['bash'] }] }],
      });
      expect(await call('make deploy')).toMatchObject(refusedWith('my own rule'));
      expect((await call('ls')).state).toBe('runnable');
    });
  });
}

/*
 * Two kernel processes on one PostgreSQL database: the guardrails cache of one process never
 * hears of the other's writes, so only the digests it reads in each call can tell it.
 */
describe.skipIf(pgSkip !== null)('guardrails changed by another kernel process', () => {
  let here: Airlock;
  let there: KernelProcess;
  let ws: string;
  let agent: Client;
  let adminThere: Client;
  beforeAll(async () => {
    const databaseUrl = await freshPostgresDatabase();
    here = await startAirlock({ databaseUrl, sweepIntervalMs: 50, rateLimit: null });
    const shared = await workspaceWithTokens(here.store, 'shared');
    ws = `/api/v1/workspaces/${shared.workspaceId}`;
    there = await startKernelProcess({ databaseUrl });
    agent = client(here.url, shared.tokens.agent);
    adminThere = client(there.url, shared.tokens.member);
  }, 90_000);
  afterAll(async () => {
    await there?.stop();
    await here?.close();
  });

  it('bind the next call this kernel weighs, and stop binding it once lifted there', async () => {
    const call = gatewayCalls(agent, ws);
    const admin = `${ws}/overlays/user/me`;
    expect((await putOverlay(adminThere, admin, guardrailDocument(null))).status).toBe(200);
    expect((await call('make deploy')).state).toBe('runnable');
    expect(
      (await putOverlay(adminThere, admin, guardrailDocument('deploys are frozen'))).status,
    ).toBe(200);
    expect(await call('make deploy')).toMatchObject(refusedWith('deploys are frozen'));
    expect(
      (await putOverlay(adminThere, admin, guardrailDocument('ask the release lead'))).status,
    ).toBe(200);
    expect(await call('make deploy')).toMatchObject(refusedWith('ask the release lead'));
    expect((await putOverlay(adminThere, admin, guardrailDocument(null))).status).toBe(200);
    expect((await call('make deploy')).state).toBe('runnable');
  });
});
