import { afterEach, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { peekRun } from '../store/runs.js';
import { client, waitFor } from '../testing/harness.js';
import {
  finalMessage,
  type ModelServer,
  startModelServer,
  toolCallMessage,
} from '../testing/model-server.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const skip = await postgresSkipReason();
if (skip) console.warn(`[airlock tests] skipping a run stopped by another kernel: ${skip}`);

/**
 * Two kernels share one PostgreSQL database. One asks the model for a run's
 * round; a member stops the run through the other. The kernel asking hears
 * the run's end and aborts its request rather than keep it running (and
 * billed) until the round's time limit, only to drop the answer.
 */
describe.skipIf(skip !== null)('a run stopped by another kernel mid-round', () => {
  const kernels: Airlock[] = [];
  let model: ModelServer | undefined;
  afterEach(async () => {
    model?.close();
    for (const kernel of kernels.splice(0)) await kernel.close();
    model = undefined;
  });

  /** Starts two kernels on one fresh database asking `model`, and a workspace on them. */
  async function twoKernels(answer: (n: number) => Record<string, unknown> | 'hang') {
    model = await startModelServer(answer);
    const databaseUrl = await freshPostgresDatabase();
    const options = {
      databaseUrl,
      sweepIntervalMs: 50,
      rateLimit: null,
      openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm', timeoutMs: 600_000 },
    };
    kernels.push(await startAirlock(options), await startAirlock(options));
    const { workspaceId, tokens } = await workspaceWithTokens(kernels[0]!.store, 'shared');
    return { ws: `/api/v1/workspaces/${workspaceId}`, tokens };
  }

  /** The kernel that holds a run's model turn, and the other one. */
  async function askingAndOther(runId: string) {
    const run = await peekRun(kernels[0]!.store, runId);
    const asking = kernels.findIndex((k) =>
      run?.model_lease_owner?.startsWith(`${k.kernel.context.instanceId}:`),
    );
    expect(asking).toBeGreaterThanOrEqual(0);
    return { asking: kernels[asking]!, other: kernels[1 - asking]! };
  }

  it("aborts the asking kernel's model request", async () => {
    const { ws, tokens } = await twoKernels((n) => (n === 1 ? 'hang' : finalMessage()));
    const created = await client(kernels[0]!.url, tokens.member).post(`${ws}/runs`, {
      approval_mode: 'bypass',
      input: 'hello',
      provider: { kind: 'openai' },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id as string;
    await waitFor(async () => model!.requests === 1, { what: 'the first model request' });
    const { asking, other } = await askingAndOther(runId);
    // The kernel listens for the run's end, which is no feed anybody opened.
    expect(asking.hub.stats()).toMatchObject({ live: 0, catchingUp: 0 });
    const stopped = await client(other.url, tokens.member).post(`${ws}/runs/${runId}/stop`);
    expect(stopped.body).toMatchObject({ state: 'canceled' });
    // Unheard, the request would hang for its whole ten minutes.
    await waitFor(async () => model!.dropped === 1, { what: 'the request to be dropped' });
    await asking.kernel.idle();
    const after = (await client(other.url, tokens.member).get(`${ws}/runs/${runId}`)).body;
    expect(after).toMatchObject({ state: 'canceled', error: null, round: 0 });
    expect(model!.requests).toBe(1);
  });

  it("aborts the asking kernel's summary request", async () => {
    // Two rounds of one call each; the third request (the summary) never answers.
    const { ws, tokens } = await twoKernels((n) =>
      n <= 2 ? toolCallMessage('deploy', `c${n}`) : n === 3 ? 'hang' : finalMessage(),
    );
    const member = client(kernels[0]!.url, tokens.member);
    const executor = client(kernels[0]!.url, tokens.executor);
    const created = await member.post(`${ws}/runs`, {
      approval_mode: 'bypass',
      input: 'x'.repeat(300),
      context_limit_bytes: 256,
      provider: { kind: 'openai', tools: [{ name: 'deploy' }] },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id as string;
    for (const key of ['t1', 't2']) {
      const task = `/executor_api/v1/runs/${runId}/tasks/${key}`;
      const claimed = await waitFor(async () => {
        const answer = await executor.post(`${task}/claim`, {});
        return answer.status === 200 && answer;
      });
      const committed = await executor.post(`${task}/commit`, {
        claim_id: claimed.body.claim_id,
        outcome: 'succeeded',
      });
      expect(committed.status).toBe(200);
    }
    await waitFor(async () => model!.requests === 3, { what: 'the summary request' });
    const { asking, other } = await askingAndOther(runId);
    const stopped = await client(other.url, tokens.member).post(`${ws}/runs/${runId}/stop`);
    expect(stopped.body).toMatchObject({ state: 'canceled' });
    await waitFor(async () => model!.dropped === 1, { what: 'the summary request to be dropped' });
    await asking.kernel.idle();
    expect(model!.requests).toBe(3);
  });
});
