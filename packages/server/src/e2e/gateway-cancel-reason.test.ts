import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const available = (await backends()).filter((backend) => backend.skip === null);

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON lines loosely and assert on them.
type Loose = any;

describe.each(available)('a gateway call withdrawn with a reason, on $name', (backend) => {
  let d: Deployment;
  const kernels = sharedKernels();
  afterAll(() => kernels.close());
  afterEach(async () => {
    await d?.close();
  });

  /** A gateway run whose one call parks (t1). */
  async function parkedGatewayCall(): Promise<string> {
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [{ tool: 'fs__write_file', verdict: 'ask' }],
    });
    const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id;
    const turn = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
      input: 'mcp session',
      provider: { kind: 'gateway', client: 'test-client 1.0' },
    });
    const runId = turn.body.id as string;
    const round = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
      calls: [{ name: 'fs__write_file', input: { path: 'a.txt' } }],
    });
    expect(round.body.tasks[0]).toMatchObject({ key: 't1', state: 'needs_approval' });
    return runId;
  }

  async function auditOf(runId: string): Promise<Loose[]> {
    const response = await fetch(`${d.url}${d.ws}/runs/${runId}/audit`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    expect(response.status).toBe(200);
    return (await response.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  }

  it('keeps the reason on the row, its event and its audit record', async () => {
    d = await kernels.deploy(backend);
    const runId = await parkedGatewayCall();
    const reason = 'the user pressed stop in the MCP client';
    const canceled = await d.agent.post(`${d.ws}/runs/${runId}/calls/t1/cancel`, { reason });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({
      key: 't1',
      state: 'canceled',
      error: { code: 'canceled', detail: reason },
    });
    const row = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
    expect(row.body.error).toEqual({ code: 'canceled', detail: reason });
    const events = await d.member.get(`${d.ws}/runs/${runId}/events`);
    const event = events.body.events.find((e: Loose) => e.type === 'task.canceled');
    expect(event.data.error).toEqual({ code: 'canceled', detail: reason });
    const record = (await auditOf(runId)).find((r) => r.decision === 'canceled');
    expect(record).toMatchObject({ task_key: 't1', detail: `canceled: ${reason}` });
  });

  it('cancels without a reason as before, and refuses a reason it cannot keep, changing nothing', async () => {
    d = await kernels.deploy(backend);
    const runId = await parkedGatewayCall();
    for (const reason of ['', 'a\u0000b', 'x'.repeat(4097), 42]) {
      const refused = await d.agent.post(`${d.ws}/runs/${runId}/calls/t1/cancel`, { reason });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_input');
    }
    const still = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
    expect(still.body).toMatchObject({ state: 'needs_approval', error: null });
    const canceled = await d.agent.post(`${d.ws}/runs/${runId}/calls/t1/cancel`);
    expect(canceled.body).toMatchObject({ state: 'canceled', error: null });
    const record = (await auditOf(runId)).find((r) => r.decision === 'canceled');
    expect(record).toMatchObject({ task_key: 't1', detail: null });
  });
});
