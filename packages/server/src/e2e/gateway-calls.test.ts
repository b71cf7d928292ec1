import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { connect, type Socket } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

const available = (await backends()).filter((backend) => backend.skip === null);

describe.each(available)(
  'gateway runs on $name: rounds planted by a client through runs.calls',
  (backend) => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    const sockets: Socket[] = [];
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.close();
      await d?.close();
    });

    async function gatewayTurn() {
      await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'rules',
        approval_rules: [
          { tool: 'fs__read_*', verdict: 'allow' },
          { tool: 'fs__write_file', verdict: 'ask' },
          { tool: 'fs__delete', verdict: 'deny', reason: 'no deletes here' },
        ],
      });
      const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id;
      const turn = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'mcp session',
        provider: { kind: 'gateway', client: 'test-client 1.0' },
      });
      expect(turn.status).toBe(201);
      return turn.body.id as string;
    }

    it('crosses the approval stage with the profile rules; parks join the open round', async () => {
      d = await kernels.deploy(backend);
      const runId = await gatewayTurn();
      // Nobody asks an external provider: the run waits for its client.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const idle = await d.agent.get(`${d.ws}/runs/${runId}`);
      expect(idle.body).toMatchObject({ state: 'running', round: 0 });
      // Its model turn is held for the client, so the resume sweep passes it by.
      const held = await waitFor(() =>
        d.airlock.store.db
          .selectFrom('runs')
          .select(['model_lease_owner', 'model_lease_until'])
          .where('id', '=', runId)
          .where('model_lease_owner', '=', 'client')
          .executeTakeFirst(),
      );
      expect(held.model_lease_until).toBeGreaterThan(Date.now() + 365 * 24 * 3600 * 1000);

      const write = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
        calls: [{ name: 'fs__write_file', input: { path: 'src/a.txt' }, id: '7' }],
      });
      expect(write.status).toBe(201);
      expect(write.body.tasks).toMatchObject([
        { key: 't1', state: 'needs_approval', origin: 'model', round: 1, tool_call_id: '7' },
      ]);
      // A second call while the first is parked joins round 1 instead of waiting behind it.
      const more = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
        calls: [{ name: 'fs__read_file', input: { path: 'src/a.txt' } }, { name: 'fs__delete' }],
      });
      expect(more.body.tasks).toMatchObject([
        { key: 't2', state: 'runnable', round: 1 },
        {
          key: 't3',
          state: 'failed',
          error: { code: 'approval_denied', detail: 'no deletes here' },
        },
      ]);

      await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/deny`, { reason: 'not now' });
      const claim = await d.executor.post('/executor_api/v1/claim', {
        tool_names: ['fs__read_file'],
      });
      await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t2/commit`, {
        claim_id: claim.body.claim.claim_id,
        outcome: 'succeeded',
        result: { content: [{ type: 'text', text: 'hello' }] },
      });
      await waitFor(async () => {
        const run = await d.agent.get(`${d.ws}/runs/${runId}`);
        return run.body.state === 'running' && run.body.attention.length === 0;
      });
      const next = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
        calls: [{ name: 'fs__read_text_file' }],
      });
      expect(next.body.tasks).toMatchObject([{ key: 't4', round: 2, state: 'runnable' }]);
      const events = await d.agent.get(`${d.ws}/runs/${runId}/events`);
      const read = events.body.events.find((e: { type: string }) => e.type === 'run.model_read');
      expect(read).toBeDefined();
    });

    it('claims the granted calls for a client that runs them itself, and only those', async () => {
      d = await kernels.deploy(backend);
      const runId = await gatewayTurn();
      const cable = await connect(`${d.url}/executor_api/v1/cable`, d.tokens.executor);
      sockets.push(cable);
      const tooShort = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
        calls: [{ name: 'fs__read_file' }],
        claim: { lease_ms: 10 },
      });
      expect(tooShort.status).toBe(400);
      expect(tooShort.body.error.code).toBe('invalid_input');

      const before = Date.now();
      const round = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
        calls: [
          { name: 'fs__read_file', input: { path: 'a' }, id: 'c1' },
          { name: 'fs__write_file', input: { path: 'b' } },
          { name: 'fs__delete' },
        ],
        claim: { lease_ms: 5_000 },
      });
      expect(round.status).toBe(201);
      // The refused 400 planted nothing: the round's first row is still t1.
      expect(round.body.tasks).toMatchObject([
        { key: 't1', state: 'claimed', tool_call_id: 'c1' },
        { key: 't2', state: 'needs_approval' },
        { key: 't3', state: 'failed' },
      ]);
      expect(round.body.claims).toHaveLength(1);
      const [claim] = round.body.claims;
      expect(claim.task).toMatchObject({ key: 't1', state: 'claimed', attempts: 1 });
      expect(claim.lease_until).toBeGreaterThanOrEqual(before + 5_000);
      expect(claim.lease_until).toBeLessThan(Date.now() + 5_000 + 1_000);

      // No executor can take the claimed row; the claim commits through the executor plane.
      const other = await d.executor.post('/executor_api/v1/claim', {
        tool_names: ['fs__read_file'],
      });
      expect(other.body.claim).toBeNull();
      const wrong = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: 'claim_not_this_one',
        outcome: 'succeeded',
      });
      expect(wrong.status).toBe(409);
      expect(wrong.body.error.code).toBe('lease_lost');
      const committed = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: claim.claim_id,
        outcome: 'succeeded',
        result: { content: [{ type: 'text', text: 'read' }] },
      });
      expect(committed.status).toBe(200);
      expect(committed.body).toMatchObject({ key: 't1', state: 'succeeded' });

      const events = await d.agent.get(`${d.ws}/runs/${runId}/events`);
      const claimed = events.body.events.filter(
        (e: { type: string; task_key: string }) => e.type === 'task.claimed',
      );
      expect(claimed).toHaveLength(1);
      expect(claimed[0]).toMatchObject({ task_key: 't1', data: { attempt: 1 } });
      // A round that asks for no claim answers none, and its granted row waits for an executor.
      const plain = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
        calls: [{ name: 'fs__read_file' }],
      });
      expect(plain.body.claims).toBeUndefined();
      expect(plain.body.tasks).toMatchObject([{ key: 't4', state: 'runnable' }]);
      // Executors are nudged for the row nobody holds, never for the one claimed as it was granted.
      const nudged = async () =>
        cable.messages.filter((m) => m.type === 'work_available' && m.kind === 'tool');
      const tools = await waitFor(async () => {
        const seen = await nudged();
        return seen.some((m) => m.task_key === 't4') ? seen : undefined;
      });
      expect(tools.map((m) => m.task_key)).toEqual(['t4']);
    });

    it('claims in its submit only the granted rows no other claim holds back (a sequential tool)', async () => {
      d = await kernels.deploy(backend);
      const put = await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'bypass',
        tool_manifest: [
          {
            name: 'migrate',
            input_schema: { type: 'object' },
            risk_traits: ['execute'],
            execution: 'sequential',
          },
        ],
      });
      expect(put.status).toBe(200);
      const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id;
      const runId = (
        await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
          input: 'mcp session',
          provider: { kind: 'gateway', client: 'test-client 1.0' },
        })
      ).body.id as string;
      const submit = () =>
        d.agent.post(`${d.ws}/runs/${runId}/calls`, {
          calls: [{ name: 'migrate', input: {} }],
          claim: { lease_ms: 5_000 },
        });
      const first = await submit();
      expect(first.body.claims).toHaveLength(1);
      // The second call of the sequential tool joins the open round granted, but unclaimed.
      const second = await submit();
      expect(second.status).toBe(201);
      expect(second.body.claims).toEqual([]);
      expect(second.body.tasks).toMatchObject([{ key: 't2', state: 'runnable' }]);
      await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: first.body.claims[0].claim_id,
        outcome: 'succeeded',
        result: 'migrated',
      });
      const after = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t2/claim`);
      expect(after.status).toBe(200);
    });

    it('cancels a parked call at its client request; the model reads it was canceled', async () => {
      d = await kernels.deploy(backend);
      const runId = await gatewayTurn();
      await d.agent.post(`${d.ws}/runs/${runId}/calls`, { calls: [{ name: 'fs__write_file' }] });
      const canceled = await d.agent.post(`${d.ws}/runs/${runId}/calls/t1/cancel`);
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ key: 't1', state: 'canceled' });
      const again = await d.agent.post(`${d.ws}/runs/${runId}/calls/t1/cancel`);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('task_not_waiting');
      const approve = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
      expect(approve.body.error.code).toBe('task_not_waiting');
      const next = await d.agent.post(`${d.ws}/runs/${runId}/calls`, { calls: [{ name: 'x' }] });
      expect(next.body.tasks[0].round).toBe(2);
      const events = await d.agent.get(`${d.ws}/runs/${runId}/events`);
      const reads = events.body.events.filter((e: { type: string }) => e.type === 'run.model_read');
      expect(reads.at(-1).data).toMatchObject({ round: 1, fed: [{ task_key: 't1' }] });
      expect(reads.at(-1).data.fed[0].content).toContain('canceled');
    });

    it('ends with the final answer, and refuses what is not a gateway round', async () => {
      d = await kernels.deploy(backend);
      const runId = await gatewayTurn();
      const neither = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {});
      expect(neither.status).toBe(400);
      expect(neither.body.error.code).toBe('invalid_input');
      const both = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
        final: 'x',
        calls: [{ name: 'a' }],
      });
      expect(both.body.error.code).toBe('invalid_input');
      const byExecutor = await d.executor.post(`${d.ws}/runs/${runId}/calls`, { final: 'x' });
      expect(byExecutor.status).toBe(403);

      const done = await d.agent.post(`${d.ws}/runs/${runId}/calls`, { final: 'session closed' });
      expect(done.status).toBe(201);
      expect(done.body.run).toMatchObject({ state: 'completed', final_answer: 'session closed' });
      const after = await d.agent.post(`${d.ws}/runs/${runId}/calls`, { calls: [{ name: 'a' }] });
      expect(after.status).toBe(409);
      expect(after.body.error.code).toBe('run_not_running');

      const scripted = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'x' }] }] },
      });
      const refused = await d.member.post(`${d.ws}/runs/${scripted.body.id}/calls`, {
        calls: [{ name: 'a' }],
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('run_not_gateway');
    });
  },
);
