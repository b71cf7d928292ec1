import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TRPC_BATCH } from '../api/trpc.js';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/**
 * What a tRPC request may carry besides its calls' inputs, held to what REST
 * allows: a bounded number of calls in a batch.
 */

const [sqlite] = await backends();

interface TrpcError {
  error: { data: { httpStatus: number; error: { code: string; detail: string } } };
}

describe('tRPC requests, held to what REST allows', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  });
  afterAll(async () => {
    await d.close();
  });

  /** A run parked on a call, which a stop would end. */
  async function parkedRun(): Promise<string> {
    const run = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'a' }] }, { final: 'f' }] },
    });
    expect(run.status).toBe(201);
    return run.body.id as string;
  }

  /** Posts one batch of `count` stops of a run. */
  function stopBatch(runId: string, count: number): Promise<Response> {
    const inputs = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [i, { workspace_id: d.workspaceId, run_id: runId }]),
    );
    const path = Array.from({ length: count }, () => 'runs.stop').join(',');
    return fetch(`${d.url}/trpc/${path}?batch=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.tokens.member}`, 'content-type': 'application/json' },
      body: JSON.stringify(inputs),
    });
  }

  it(`refuses a batch of more than ${MAX_TRPC_BATCH} calls whole, before any call runs`, async () => {
    const runId = await parkedRun();
    const refused = await stopBatch(runId, MAX_TRPC_BATCH + 1);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as TrpcError;
    expect(body.error.data.error.code).toBe('invalid_input');
    expect(body.error.data.error.detail).toContain(`at most ${MAX_TRPC_BATCH} calls`);
    expect((await d.member.get(`${d.ws}/runs/${runId}`)).body.state).toBe('running');
    // At the bound the batch is served: the first stop ends the run, the others find it ended.
    const served = await stopBatch(runId, MAX_TRPC_BATCH);
    expect((await served.json()) as unknown[]).toHaveLength(MAX_TRPC_BATCH);
    expect((await d.member.get(`${d.ws}/runs/${runId}`)).body.state).toBe('canceled');
  });
});
