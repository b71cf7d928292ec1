import { afterEach, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel, eventually as waitFor } from '../support/kernel.js';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';

async function send(
  kernel: TestKernel,
  method: string,
  path: string,
  token: string,
  body?: unknown,
) {
  const response = await fetch(`${kernel.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

/** A traced kernel and a gateway run in it whose `deploy` calls park; answers the run's id. */
async function tracedGatewayRun(): Promise<{
  kernel: TestKernel;
  receiver: OtlpReceiver;
  ws: string;
  runId: string;
}> {
  const receiver = await startOtlpReceiver();
  const kernel = await startTestKernel({ otlpEndpoint: receiver.url });
  const { tokens } = kernel.workspace;
  await send(kernel, 'PUT', '/agent_api/v1/profile/configuration', tokens.agent, {
    approval_mode: 'rules',
    approval_rules: [{ tool: 'deploy', verdict: 'ask' }],
  });
  const conversation = (await send(kernel, 'POST', '/agent_api/v1/conversations', tokens.agent, {}))
    .body.id;
  const run = await send(
    kernel,
    'POST',
    `/agent_api/v1/conversations/${conversation}/inputs`,
    tokens.agent,
    { input: 'rolled back', provider: { kind: 'gateway', client: 'span-test 1.0' } },
  );
  return { kernel, receiver, ws: `/api/v1/workspaces/${kernel.workspace.id}`, runId: run.body.id };
}

/**
 * A unit of work that rolls back (a PostgreSQL retry, a refusal at the unit's end such as an
 * email link's single-use check) must leave no span of a decision that did not happen.
 */
describe('spans of a unit that rolled back', () => {
  let kernel: TestKernel | undefined;
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    await kernel?.close();
    await receiver?.close();
  });

  it("exports a person's decision once, from the unit that committed it", async () => {
    const traced = await tracedGatewayRun();
    ({ kernel, receiver } = traced);
    const { ws, runId } = traced;
    const { tokens } = kernel.workspace;
    const round = await send(kernel, 'POST', `${ws}/runs/${runId}/calls`, tokens.agent, {
      calls: [{ name: 'deploy', input: {} }],
    });
    expect(round.body.tasks[0].state).toBe('needs_approval');

    // The first deny's unit fails at its end, after the kernel decided: it rolls back.
    const removeHook = kernel.airlock.store.onUnitEvents(async (_tx, events) => {
      if (events.some((event) => event.type === 'task.denied')) {
        throw new Error('refused at the end of the unit');
      }
    });
    const refused = await send(kernel, 'POST', `${ws}/runs/${runId}/tasks/t1/deny`, tokens.member, {
      reason: 'first try',
    });
    expect(refused.status).toBe(500);
    expect(
      (await send(kernel, 'GET', `${ws}/runs/${runId}/tasks/t1`, tokens.member)).body.state,
    ).toBe('needs_approval');
    removeHook();
    const denied = await send(kernel, 'POST', `${ws}/runs/${runId}/tasks/t1/deny`, tokens.member, {
      reason: 'second try',
    });
    expect(denied.status).toBe(200);

    // Both requests' spans end after any decision span they made, so once both are exported
    // every decision span is too.
    await waitFor(
      async () =>
        receiver!.spans.filter((span) => span.name === 'decisions.deny').length === 2 ? true : null,
      { what: 'both deny requests to be exported' },
    );
    const ofCall = (name: string) =>
      receiver!.spans.filter(
        (span) =>
          span.name === name &&
          span.attributes['airlock.run_id'] === runId &&
          span.attributes['airlock.task_key'] === 't1',
      );
    expect(ofCall('airlock.decision').map((span) => span.attributes['airlock.decision'])).toEqual([
      'deny',
    ]);
    expect(ofCall('airlock.park')).toHaveLength(1);
  });

  it("exports the stage's decision of a call once, from the unit that planted it", async () => {
    const traced = await tracedGatewayRun();
    ({ kernel, receiver } = traced);
    const { ws, runId } = traced;
    const { tokens } = kernel.workspace;
    const removeHook = kernel.airlock.store.onUnitEvents(async (_tx, events) => {
      if (events.some((event) => event.type === 'task.parked')) {
        throw new Error('refused at the end of the unit');
      }
    });
    const calls = { calls: [{ name: 'deploy', input: {} }] };
    const refused = await send(kernel, 'POST', `${ws}/runs/${runId}/calls`, tokens.agent, calls);
    expect(refused.status).toBe(500);
    removeHook();
    const round = await send(kernel, 'POST', `${ws}/runs/${runId}/calls`, tokens.agent, calls);
    expect(round.body.tasks[0]).toMatchObject({ key: 't1', state: 'needs_approval' });
    await waitFor(
      async () =>
        receiver!.spans.filter((span) => span.name === 'runs.calls').length === 2 ? true : null,
      { what: 'both calls requests to be exported' },
    );
    const stage = receiver.spans.filter(
      (span) => span.name === 'airlock.stage' && span.attributes['airlock.run_id'] === runId,
    );
    expect(stage.map((span) => span.attributes['airlock.outcome'])).toEqual(['parked']);
  });
});
