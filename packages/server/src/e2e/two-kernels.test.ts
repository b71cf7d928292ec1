import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Airlock, startAirlock } from '../airlock.js';
import { client, waitFor } from '../testing/harness.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const skip = await postgresSkipReason();
if (skip) console.warn(`[airlock tests] skipping two kernels on one PostgreSQL: ${skip}`);

describe.skipIf(skip !== null)('two kernels sharing one PostgreSQL database', () => {
  let a: Airlock;
  let b: Airlock;
  let ws: string;
  let tokens: { agent: string; executor: string; member: string };
  beforeAll(async () => {
    const databaseUrl = await freshPostgresDatabase();
    // The test polls many runs every 20 ms: the default PostgreSQL rate limit would refuse it.
    const options = { databaseUrl, parkTtlMs: 1500, sweepIntervalMs: 20, rateLimit: null };
    a = await startAirlock(options);
    b = await startAirlock(options);
    const shared = await workspaceWithTokens(a.store, 'shared');
    tokens = shared.tokens;
    ws = `/api/v1/workspaces/${shared.workspaceId}`;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('fires each park clock once and takes each model turn once', async () => {
    const agents = [client(a.url, tokens.agent), client(b.url, tokens.agent)];
    const runs = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const created = await agents[i % 2]!.post(`${ws}/runs`, {
          approval_mode: 'ask',
          input: 'x',
          provider: {
            kind: 'scripted',
            rounds: [
              { tool_calls: [{ name: 'deploy' }, { name: 'publish' }] },
              { final: 'both expired', expect: 'Nobody approved' },
            ],
          },
        });
        return created.body.id as string;
      }),
    );
    const reader = agents[0]!;
    await waitFor(
      async () => {
        const states = await Promise.all(
          runs.map(async (id) => (await reader.get(`${ws}/runs/${id}`)).body.state),
        );
        return states.every((s) => s === 'completed');
      },
      { timeoutMs: 20_000, what: 'every run to complete' },
    );
    for (const runId of runs) {
      const events = (await reader.get(`${ws}/runs/${runId}/events?limit=1000`)).body.events as {
        type: string;
      }[];
      const count = (type: string) => events.filter((e) => e.type === type).length;
      expect(count('task.expired')).toBe(2);
      expect(count('run.model_read')).toBe(2);
      expect(count('run.round_started')).toBe(1);
      expect(count('run.completed')).toBe(1);
    }
  });

  it('never hands one row to two executors (SKIP LOCKED and conditional claims)', async () => {
    const calls = Array.from({ length: 60 }, (_, i) => ({ name: 'work', input: { i } }));
    const run = await client(a.url, tokens.agent).post(`${ws}/runs`, {
      approval_mode: 'bypass',
      input: 'x',
      provider: { kind: 'scripted', rounds: [{ tool_calls: calls }, { final: 'done' }] },
    });
    expect(run.status).toBe(201);
    const executors = Array.from({ length: 8 }, (_, i) =>
      client(i % 2 ? b.url : a.url, tokens.executor),
    );
    const claimed: string[] = [];
    await Promise.all(
      executors.map(async (executor) => {
        for (;;) {
          const answer = await executor.post('/executor_api/v1/claim', {});
          expect(answer.status).toBe(200);
          const claim = answer.body.claim;
          if (!claim) return;
          claimed.push(claim.task.key);
          const commit = await executor.post(
            `/executor_api/v1/runs/${claim.task.run_id}/tasks/${claim.task.key}/commit`,
            { claim_id: claim.claim_id, outcome: 'succeeded', result: 'ok' },
          );
          expect(commit.status).toBe(200);
        }
      }),
    );
    expect(claimed).toHaveLength(60);
    expect(new Set(claimed).size).toBe(60);
    await waitFor(async () => {
      const r = await client(a.url, tokens.agent).get(`${ws}/runs/${run.body.id}`);
      return r.body.state === 'completed';
    });
  });

  it("streams one kernel's transitions on another kernel's feed", async () => {
    const run = await client(a.url, tokens.agent).post(`${ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }],
      },
    });
    const seen: { type: string; principal: string | null }[] = [];
    const socket = new WebSocket(`${b.url.replace('http', 'ws')}${ws}/feed?run_id=${run.body.id}`, {
      headers: { authorization: `Bearer ${tokens.member}` },
    });
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === 'event') seen.push(message.event);
    });
    await new Promise((resolve) => socket.once('open', resolve));
    await waitFor(async () => seen.some((e) => e.type === 'task.parked'));
    const approved = await client(a.url, tokens.member).post(
      `${ws}/runs/${run.body.id}/tasks/t1/approve`,
    );
    expect(approved.status).toBe(200);
    await waitFor(async () => seen.some((e) => e.type === 'task.approved'), { timeoutMs: 10_000 });
    socket.close();
  });
});
