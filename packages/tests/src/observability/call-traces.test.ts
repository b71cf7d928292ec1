import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel, eventually as waitFor } from '../support/kernel.js';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';

/** What the test reaches the kernel with. */
interface Deployment {
  url: string;
  ws: string;
  tokens: TestKernel['workspace']['tokens'];
  kernel: TestKernel;
}

async function deploy(receiver: OtlpReceiver): Promise<Deployment> {
  const kernel = await startTestKernel({ otlpEndpoint: receiver.url });
  return {
    url: kernel.url,
    ws: `/api/v1/workspaces/${kernel.workspace.id}`,
    tokens: kernel.workspace.tokens,
    kernel,
  };
}

async function send(d: Deployment, method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

async function post(
  d: Deployment,
  token: string,
  path: string,
  body: unknown,
  traceparent?: string,
) {
  const response = await fetch(`${d.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(traceparent ? { traceparent } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('OpenTelemetry traces of a call path, exported over OTLP/HTTP', () => {
  let d: Deployment | undefined;
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    await d?.kernel.close();
    await receiver?.close();
  });

  it('hangs stage, park, decision, claim and commit under the traceparent the client sent', async () => {
    receiver = await startOtlpReceiver();
    d = await deploy(receiver);
    await send(d, 'PUT', '/agent_api/v1/profile/configuration', d.tokens.agent, {
      approval_mode: 'rules',
      approval_rules: [{ tool: 'fs__write_file', verdict: 'ask' }],
    });
    const conversation = (await send(d, 'POST', '/agent_api/v1/conversations', d.tokens.agent, {}))
      .body.id;
    const runId = (
      await send(d, 'POST', `/agent_api/v1/conversations/${conversation}/inputs`, d.tokens.agent, {
        input: 'traced session',
        provider: { kind: 'gateway', client: 'trace-test 1.0' },
      })
    ).body.id as string;

    // The gateway client's own span, as its traceparent header names it.
    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const round = await post(
      d,
      d.tokens.agent,
      `${d.ws}/runs/${runId}/calls`,
      { calls: [{ name: 'fs__write_file', input: { path: 'a.txt' } }] },
      `00-${traceId}-${clientSpanId}-01`,
    );
    expect(round.body.tasks[0].state).toBe('needs_approval');
    // The person decides from another trace of their own (the inbox, the SDK).
    const approverTrace = randomBytes(16).toString('hex');
    const approve = await post(
      d,
      d.tokens.member,
      `${d.ws}/runs/${runId}/tasks/t1/approve`,
      {},
      `00-${approverTrace}-${randomBytes(8).toString('hex')}-01`,
    );
    expect(approve.status).toBe(200);
    const claim = await post(d, d.tokens.executor, '/executor_api/v1/claim', {
      tool_names: ['fs__write_file'],
    });
    expect(claim.body.claim.task.key).toBe('t1');
    const commit = await post(
      d,
      d.tokens.executor,
      `/executor_api/v1/runs/${runId}/tasks/t1/commit`,
      {
        claim_id: claim.body.claim.claim_id,
        outcome: 'succeeded',
        result: { content: [{ type: 'text', text: 'written' }] },
      },
    );
    expect(commit.status).toBe(200);

    const names = [
      'airlock.stage',
      'airlock.park',
      'airlock.decision',
      'airlock.claim',
      'airlock.commit',
    ];
    const inTrace = await waitFor(
      async () => {
        const spans = receiver!.spans.filter((span) => span.traceId === traceId);
        return names.every((name) => spans.some((span) => span.name === name)) ? spans : null;
      },
      { what: 'the spans of the call to be exported' },
    );
    // The request that brought the call continues the client's span.
    const request = inTrace.find((span) => span.name === 'runs.calls')!;
    expect(request).toMatchObject({ parentSpanId: clientSpanId, kind: 2, service: 'airlock' });
    expect(request.attributes).toMatchObject({ 'http.response.status_code': 201 });
    // Every step of the call hangs from that request, in the client's trace.
    for (const name of names) {
      const span = inTrace.find((s) => s.name === name)!;
      expect(span.parentSpanId, name).toBe(request.spanId);
      expect(span.attributes, name).toMatchObject({
        'airlock.run_id': runId,
        'airlock.task_key': 't1',
      });
    }
    expect(inTrace.find((s) => s.name === 'airlock.stage')!.attributes).toMatchObject({
      'airlock.outcome': 'parked',
      'airlock.layer': 'approval_rules',
      'airlock.tool_name': 'fs__write_file',
    });
    // The park lasts from the call's arrival to the person's decision.
    const park = inTrace.find((s) => s.name === 'airlock.park')!;
    const decision = inTrace.find((s) => s.name === 'airlock.decision')!;
    expect(BigInt(park.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(decision.startTimeUnixNano));
    expect(decision.attributes['airlock.decision']).toBe('approve');
    // The decision links to the approver's own request, which stays in the approver's trace.
    const approveSpan = receiver.spans.find((s) => s.name === 'decisions.approve')!;
    expect(approveSpan.traceId).toBe(approverTrace);
    expect(decision.links).toEqual([{ traceId: approverTrace, spanId: approveSpan.spanId }]);
    expect(inTrace.find((s) => s.name === 'airlock.commit')!.attributes).toMatchObject({
      'airlock.outcome': 'succeeded',
    });
  });

  it('starts a new trace for a request without a traceparent, and ignores a malformed one', async () => {
    receiver = await startOtlpReceiver();
    d = await deploy(receiver);
    const bad = await fetch(`${d.url}${d.ws}/runs?limit=1`, {
      headers: { authorization: `Bearer ${d.tokens.member}`, traceparent: '00-zz-not-a-trace' },
    });
    expect(bad.status).toBe(200);
    const span = await waitFor(async () => receiver!.spans.find((s) => s.name === 'runs.list'));
    expect(span.parentSpanId).toBe('');
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});
