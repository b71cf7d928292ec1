import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');

const script = (rounds: unknown[]) => ({ kind: 'scripted', rounds });

async function conversationUnder(d: Deployment, extra: object = {}) {
  const put = await d.agent.put('/agent_api/v1/profile/configuration', {
    approval_mode: 'bypass',
    permission_rule_set: 'supervised',
    project_root: '/repo',
    ...extra,
  });
  expect(put.status).toBe(200);
  return (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
}

async function settledTurn(d: Deployment, conversation: string, calls: unknown[]) {
  const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
    input: 'go',
    provider: script([{ tool_calls: calls }, { final: 'done' }]),
  });
  expect(started.status).toBe(201);
  const runId = started.body.id as string;
  const tasks = await waitFor(async () => {
    const rows = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as {
      key: string;
      state: string;
    }[];
    return rows.length === calls.length && rows.every((r) => r.state !== 'ready') ? rows : null;
  });
  return { runId, tasks };
}

for (const backend of sqlite) {
  describe.skipIf(backend.skip !== null)(
    `approve and remember keeps its word (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      it('"exactly this call" for a tool named b* grants b* again, never bash or bq', async () => {
        d = await kernels.deploy(backend);
        const conversation = await conversationUnder(d);
        const input = { q: '*?[]|' };
        const first = await settledTurn(d, conversation, [{ name: 'b*', input }]);
        expect(first.tasks[0]!.state).toBe('needs_approval');
        const approved = await d.member.post(
          `${d.ws}/runs/${first.runId}/tasks/${first.tasks[0]!.key}/approve`,
          { remember: { scope: 'conversation' } },
        );
        expect(approved.status).toBe(200);
        const overlay = await d.member.get(`${d.ws}/overlays/conversation/${conversation}`);
        expect(overlay.body.groups[0].rules).toEqual([
          { verdict: 'allow', tool_names: ['b*'], arguments: { '': input } },
        ]);
        const next = await settledTurn(d, conversation, [
          { name: 'bash', input },
          { name: 'bq', input },
          { name: 'b?', input },
          { name: 'b*', input: { q: '*?[]' } },
          { name: 'b*', input },
        ]);
        expect(next.tasks.map((t) => t.state)).toEqual([
          'needs_approval',
          'needs_approval',
          'needs_approval',
          'needs_approval',
          'runnable',
        ]);
      });

      it('refuses remember with 422 remember_unavailable when Baseline parked the call', async () => {
        d = await kernels.deploy(backend);
        const conversation = await conversationUnder(d, {
          tool_manifest: [
            { name: 'read_file', input_schema: { type: 'object' }, risk_traits: ['read'] },
          ],
        });
        const first = await settledTurn(d, conversation, [{ name: 'deploy', input: {} }]);
        const row = first.tasks[0]!;
        expect(row.state).toBe('needs_approval');
        const path = `${d.ws}/runs/${first.runId}/tasks/${row.key}/approve`;
        const refused = await d.member.post(path, { remember: { scope: 'conversation' } });
        expect(refused.status).toBe(422);
        expect(refused.body.error.code).toBe('remember_unavailable');
        expect(refused.body.error.detail).toContain('Baseline (undeclared_tool)');
        const overlay = await d.member.get(`${d.ws}/overlays/conversation/${conversation}`);
        expect(overlay.body.groups).toEqual([]);
        const tasks = (await d.member.get(`${d.ws}/runs/${first.runId}/tasks`)).body.tasks;
        expect(tasks[0].state).toBe('needs_approval');
        expect((await d.member.post(path, {})).status).toBe(200);
      });
    },
  );
}
