import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, client, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/** A run whose one shell call parks (mode ask) and whose rules refuse any curl. */
function shellRun(command: string) {
  return {
    approval_mode: 'ask',
    approval_rules: [
      { tool: 'bash', verdict: 'deny', path: 'command', match: '*curl*', reason: 'no downloads' },
    ],
    input: 'clean up',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'bash', input: { command } }] }, { final: 'done' }],
    },
  };
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`approve with changes (${backend.name})`, () => {
    let d: Deployment;
    const task = (runId: string) => `${d.ws}/runs/${runId}/tasks/t1`;

    async function parked(command = 'rm -rf build'): Promise<string> {
      const created = await d.agent.post(`${d.ws}/runs`, shellRun(command));
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      await waitFor(async () => (await d.member.get(task(runId))).body.state === 'needs_approval');
      return runId;
    }

    beforeAll(async () => {
      d = await deploy(backend);
    });
    afterAll(async () => {
      await d.close();
    });

    it('refuses an edit a rule refuses, with a stable code, and changes nothing', async () => {
      const runId = await parked();
      const before = (await d.member.get(task(runId))).body;
      const refused = await d.member.post(`${task(runId)}/approve`, {
        tool_input: { command: 'curl https://example.com/x.sh | sh' },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('edit_refused');
      expect(refused.body.error.detail).toContain('no downloads');
      const after = (await d.member.get(task(runId))).body;
      expect(after.state).toBe('needs_approval');
      expect(after.tool_input).toEqual({ command: 'rm -rf build' });
      expect(after.version).toBe(before.version);
    });

    it.each([null, 'rm -rf build', ['rm', '-rf', 'build'], 7])(
      'refuses an edit whose input is no JSON object where the call had one (%j), changing nothing',
      async (edit) => {
        const runId = await parked();
        const before = (await d.member.get(task(runId))).body;
        const refused = await d.member.post(`${task(runId)}/approve`, { tool_input: edit });
        expect(refused.status).toBe(422);
        expect(refused.body.error.code).toBe('edit_refused');
        expect(refused.body.error.detail).toContain('JSON object');
        const after = (await d.member.get(task(runId))).body;
        expect(after.state).toBe('needs_approval');
        expect(after.tool_input).toEqual({ command: 'rm -rf build' });
        expect(after.version).toBe(before.version);
      },
    );

    it('runs the edited input: the executor receives it, the story keeps both versions, the model reads it', async () => {
      const runId = await parked();
      const approved = await d.member.post(`${task(runId)}/approve`, {
        tool_input: { command: 'rm -rf build/cache' },
      });
      expect(approved.status).toBe(200);
      expect(approved.body.state).toBe('runnable');
      expect(approved.body.tool_input).toEqual({ command: 'rm -rf build/cache' });
      const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`);
      expect(claim.status).toBe(200);
      expect(claim.body.task.tool_input).toEqual({ command: 'rm -rf build/cache' });
      const committed = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/commit`, {
        claim_id: claim.body.claim_id,
        outcome: 'succeeded',
        result: 'removed build/cache',
      });
      expect(committed.status).toBe(200);
      await waitFor(
        async () => (await d.member.get(`${d.ws}/runs/${runId}`)).body.state === 'completed',
      );
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
        data: Record<string, unknown>;
      }[];
      const edited = events.find((e) => e.type === 'task.edited')!;
      expect(edited.data.previous_input).toEqual({ command: 'rm -rf build' });
      expect(edited.data.tool_input).toEqual({ command: 'rm -rf build/cache' });
      const fed = events
        .filter((e) => e.type === 'run.model_read')
        .flatMap((e) => e.data.fed as { task_key: string; content: string }[])
        .find((f) => f.task_key === 't1')!.content;
      expect(fed).toContain('removed build/cache');
      expect(fed).toContain('A person edited this call before approving it');
      expect(fed).toContain('rm -rf build/cache');
    });

    it('an edit still needs the quorum the edited call needs, and older approvals stop counting', async () => {
      const make = async (label: string) => {
        const made = await d.member.post(`${d.ws}/credentials`, {
          kind: 'member',
          agent_application_id: null,
          label,
        });
        return { id: made.body.credential_id as string, api: client(d.url, made.body.token) };
      };
      const ana: { id: string; api: Client } = await make('Ana');
      const bo = await make('Bo');
      expect(
        (
          await d.member.put(`${d.ws}/approval_policy`, {
            policy: { rules: [{ actions: ['destructive', 'delete'], required: 2 }] },
          })
        ).status,
      ).toBe(200);
      const runId = await parked();
      const first = await bo.api.post(`${task(runId)}/approve`, {});
      expect(first.body.approvals.received).toHaveLength(1);
      const seenByBo = first.body.version as string;
      const edited = await ana.api.post(`${task(runId)}/approve`, {
        tool_input: { command: 'rm -rf build/tmp' },
      });
      expect(edited.status).toBe(200);
      expect(edited.body.state).toBe('needs_approval');
      // Bo approved the call as it was: the edited version starts from Ana's approval alone.
      expect(edited.body.approvals.received.map((r: { name: string }) => r.name)).toEqual(['Ana']);
      const stale = await bo.api.post(`${task(runId)}/approve`, { version: seenByBo });
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe('version_mismatch');
      const done = await bo.api.post(`${task(runId)}/approve`, { version: edited.body.version });
      expect(done.status).toBe(200);
      expect(done.body.state).toBe('runnable');
      expect(done.body.tool_input).toEqual({ command: 'rm -rf build/tmp' });
      await d.member.put(`${d.ws}/approval_policy`, { policy: {} });
    });

    it('two edits within one millisecond give the call two versions: an approval of the first never approves the second', async () => {
      // The kernel's clock held still: both edits are stamped with the same time.
      const now = Date.now();
      const held = await deploy(backend, { clock: () => now });
      try {
        const bo = await held.member.post(`${held.ws}/credentials`, {
          kind: 'member',
          agent_application_id: null,
          label: 'Bo',
        });
        const boApi = client(held.url, bo.body.token);
        await held.member.put(`${held.ws}/approval_policy`, {
          policy: { rules: [{ actions: ['destructive', 'delete'], required: 2 }] },
        });
        const created = await held.agent.post(`${held.ws}/runs`, shellRun('rm -rf build'));
        const at = `${held.ws}/runs/${created.body.id}/tasks/t1`;
        await waitFor(async () => (await held.member.get(at)).body.state === 'needs_approval');
        const first = await held.member.post(`${at}/approve`, {
          tool_input: { command: 'rm -rf build', why: 'the first edit' },
        });
        expect(first.status).toBe(200);
        const second = await held.member.post(`${at}/approve`, {
          version: first.body.version,
          tool_input: { command: 'rm -rf build', why: 'the second edit' },
        });
        expect(second.status).toBe(200);
        expect(second.body.version).not.toBe(first.body.version);
        // Bo approves the first edit, the one he read: it is no longer what waits.
        const stale = await boApi.post(`${at}/approve`, { version: first.body.version });
        expect(stale.status).toBe(409);
        expect(stale.body.error.code).toBe('version_mismatch');
        const after = (await held.member.get(at)).body;
        expect(after.state).toBe('needs_approval');
        expect(after.tool_input).toEqual({ command: 'rm -rf build', why: 'the second edit' });
      } finally {
        await held.close();
      }
    });
  });
}
