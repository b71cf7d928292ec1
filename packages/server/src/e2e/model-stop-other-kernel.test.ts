import { afterEach, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { peekRun } from '../store/runs.js';
import { client, waitFor } from '../testing/harness.js';
import { finalMessage, type ModelServer, startModelServer } from '../testing/model-server.js';
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

  it("aborts the asking kernel's model request", async () => {
    model = await startModelServer((n) => (n === 1 ? 'hang' : finalMessage()));
    const databaseUrl = await freshPostgresDatabase();
    const options = {
      databaseUrl,
      sweepIntervalMs: 50,
      rateLimit: null,
      openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm', timeoutMs: 600_000 },
    };
    kernels.push(await startAirlock(options), await startAirlock(options));
    const { workspaceId, tokens } = await workspaceWithTokens(kernels[0]!.store, 'shared');
    const ws = `/api/v1/workspaces/${workspaceId}`;
    const created = await client(kernels[0]!.url, tokens.member).post(`${ws}/runs`, {
      approval_mode: 'bypass',
      input: 'hello',
      provider: { kind: 'openai' },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id as string;
    await waitFor(async () => model!.requests === 1, { what: 'the first model request' });
    const run = await peekRun(kernels[0]!.store, runId);
    const asking = kernels.findIndex((k) =>
      run?.model_lease_owner?.startsWith(`${k.kernel.context.instanceId}:`),
    );
    expect(asking).toBeGreaterThanOrEqual(0);
    const other = kernels[1 - asking]!;
    const stopped = await client(other.url, tokens.member).post(`${ws}/runs/${runId}/stop`);
    expect(stopped.body).toMatchObject({ state: 'canceled' });
    // Unheard, the request would hang for its whole ten minutes.
    await waitFor(async () => model!.dropped === 1, { what: 'the request to be dropped' });
    await kernels[asking]!.kernel.idle();
    const after = (await client(other.url, tokens.member).get(`${ws}/runs/${runId}`)).body;
    expect(after).toMatchObject({ state: 'canceled', error: null, round: 0 });
    expect(model.requests).toBe(1);
  });
});
