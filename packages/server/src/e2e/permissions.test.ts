import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

const MANIFEST = [
  {
    name: 'read_file',
    input_schema: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } },
    risk_traits: ['read'],
    targets: [{ pointer: '/path', kind: 'path' }],
  },
  {
    name: 'write_file',
    input_schema: {
      type: 'object',
      required: ['path', 'content'],
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      additionalProperties: false,
    },
    risk_traits: ['write'],
    targets: [{ pointer: '/path', kind: 'path' }],
  },
];

const script = (rounds: unknown[]) => ({ kind: 'scripted', rounds });

/** Declares a bypass profile selecting a rule set, opens a conversation, returns its id. */
async function conversationUnder(d: Deployment, ruleSet: string, extra: object = {}) {
  const put = await d.agent.put('/agent_api/v1/profile/configuration', {
    approval_mode: 'bypass',
    tool_manifest: MANIFEST,
    permission_rule_set: ruleSet,
    project_root: '/repo',
    ...extra,
  });
  expect(put.status).toBe(200);
  return (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
}

async function turn(d: Deployment, conversation: string, rounds: unknown[]) {
  const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
    input: 'go',
    provider: script(rounds),
  });
  expect(started.status).toBe(201);
  return started.body.id as string;
}

async function tasksOf(d: Deployment, runId: string) {
  return (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as {
    key: string;
    state: string;
    tool_name: string;
    error?: { code: string; detail: string } | null;
    decision?: unknown;
  }[];
}

const write = (path: string) => ({ name: 'write_file', input: { path, content: 'x' } });

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`permission rule sets over HTTP (${backend.name})`, () => {
    let d: Deployment;
    const kernels = sharedKernels();
    afterAll(() => kernels.close());
    afterEach(async () => {
      await d?.close();
    });

    it('bypass + read_only parks nothing, refuses a write as data, and refuses a bad input by its schema', async () => {
      d = await kernels.deploy(backend);
      const conversation = await conversationUnder(d, 'read_only');
      const runId = await turn(d, conversation, [
        {
          tool_calls: [
            { name: 'read_file', input: { path: 'src/a.ts' } },
            write('src/a.ts'),
            { name: 'write_file', input: { path: 7 } },
          ],
        },
        {
          final: 'done',
          expect: [
            'the read_only rule set allows interaction, local inspection and delegation only',
            'the input does not match the schema of write_file',
          ],
        },
      ]);
      const tasks = await waitFor(async () => {
        const rows = await tasksOf(d, runId);
        return rows.length === 3 ? rows : null;
      });
      expect(tasks.map((t) => t.state)).toEqual(['runnable', 'failed', 'failed']);
      expect(tasks.some((t) => t.state === 'needs_approval')).toBe(false);
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body.events;
      const denied = events.filter((e: { type: string }) => e.type === 'task.denied');
      expect(denied[0].data).toMatchObject({
        layer: 'rule_set',
        error: { code: 'approval_denied' },
      });
      const ruleSetLayer = denied[0].data.layers.find(
        (l: { layer: string }) => l.layer === 'rule_set',
      );
      expect(ruleSetLayer.rule).toMatchObject({
        rule_set: { id: 'read_only', version: '1' },
        scope: 'rule_set',
        index: 0,
      });
      expect(denied[1].data.error.detail).toMatch(/\/path must be string/);
      expect(denied[1].data.error.detail).toMatch(/must have required property 'content'/);
    });

    it('refuses a declaration whose manifest is malformed or whose schema does not compile', async () => {
      d = await kernels.deploy(backend);
      const bad = await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'bypass',
        permission_rule_set: 'read_only',
        tool_manifest: [
          { ...MANIFEST[0], input_schema: { type: 'nonsense' } },
          { ...MANIFEST[1], risk_traits: ['fly'] },
        ],
      });
      expect(bad.status).toBe(422);
      expect(bad.body.error.problems.map((p: { pointer: string }) => p.pointer)).toEqual([
        '/tool_manifest/1/risk_traits/0',
        '/tool_manifest/0/input_schema',
      ]);
      const run = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'x',
        provider: script([{ final: 'x' }]),
        tool_manifest: [{ ...MANIFEST[0], input_schema: { type: 'nonsense' } }],
      });
      expect(run.status).toBe(422);
      expect(run.body.error.problems[0].pointer).toBe('/tool_manifest/0/input_schema');
      expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
    });

    it('a conversation overlay allowing src/** writes grants src/a.ts and refuses ../etc/passwd', async () => {
      d = await kernels.deploy(backend);
      const conversation = await conversationUnder(d, 'read_only');
      const path = `${d.ws}/overlays/conversation/${conversation}`;
      const empty = await d.member.get(path);
      expect(empty.body).toMatchObject({ groups: [], active: true });
      const put = await d.member.put(path, {
        expected_digest: empty.body.digest,
        groups: [
          {
            ruleSetId: 'read_only',
            rules: [{ verdict: 'allow', risks: ['write'], targets: ['src/**'] }],
          },
        ],
      });
      expect(put.status).toBe(200);
      const runId = await turn(d, conversation, [
        { tool_calls: [write('./src/../src/a.ts'), write('../etc/passwd')] },
        { final: 'done' },
      ]);
      const tasks = await waitFor(async () => {
        const rows = await tasksOf(d, runId);
        return rows.length === 2 ? rows : null;
      });
      expect(tasks.map((t) => t.state)).toEqual(['runnable', 'failed']);
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body.events;
      const granted = events.find((e: { type: string }) => e.type === 'task.granted');
      expect(
        granted.data.layers.find((l: { layer: string }) => l.layer === 'rule_set').rule,
      ).toMatchObject({ scope: 'conversation', group: 0, index: 0 });
      // A stale writer is refused and changes nothing.
      const stale = await d.member.put(path, { expected_digest: empty.body.digest, groups: [] });
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe('stale_digest');
      expect((await d.member.get(path)).body.digest).toBe(put.body.digest);
      // Bad documents are refused with pointers.
      const bad = await d.member.put(path, {
        expected_digest: put.body.digest,
        groups: [{ ruleSetId: 'read_only', rules: [{ verdict: 'allow', targets: ['/etc/**'] }] }],
      });
      expect(bad.status).toBe(422);
      expect(bad.body.error.problems[0].pointer).toBe('/groups/0/rules/0/targets/0');
    });

    it('approve with remember writes into the captured set; the next identical call is granted without a park', async () => {
      d = await kernels.deploy(backend);
      const conversation = await conversationUnder(d, 'supervised');
      const first = await turn(d, conversation, [
        { tool_calls: [write('src/a.ts')] },
        { final: 'done' },
      ]);
      const [parked] = await waitFor(async () => {
        const rows = await tasksOf(d, first);
        return rows[0]?.state === 'needs_approval' ? rows : null;
      });
      // The approver reads the tool's declared risk traits beside the action tags.
      const card = await d.member.get(`${d.ws}/runs/${first}/tasks/${parked!.key}`);
      expect(card.body.effect_profile).toMatchObject({
        tool_name: 'write_file',
        risk_traits: ['write'],
      });
      // The profile now selects another set: the saved grant still goes to supervised.
      await conversationUnder(d, 'planning');
      const approved = await d.member.post(`${d.ws}/runs/${first}/tasks/${parked!.key}/approve`, {
        remember: { scope: 'conversation' },
      });
      expect(approved.status).toBe(200);
      expect(approved.body.state).toBe('runnable');
      const overlay = await d.member.get(`${d.ws}/overlays/conversation/${conversation}`);
      expect(overlay.body.groups).toEqual([
        {
          ruleSetId: 'supervised',
          rules: [
            {
              verdict: 'allow',
              tool_names: ['write_file'],
              arguments: { '': { path: 'src/a.ts', content: 'x' } },
            },
          ],
        },
      ]);
      const approvedEvent = (
        await d.member.get(`${d.ws}/runs/${first}/events?limit=100`)
      ).body.events.find((e: { type: string }) => e.type === 'task.approved');
      expect(approvedEvent.data.remembered).toMatchObject({
        scope: 'conversation',
        owner_id: conversation,
        rule_set: 'supervised',
        digest: overlay.body.digest,
      });
      await conversationUnder(d, 'supervised');
      const second = await turn(d, conversation, [
        { tool_calls: [write('src/a.ts'), write('src/b.ts')] },
        { final: 'done' },
      ]);
      const rows = await waitFor(async () => {
        const list = await tasksOf(d, second);
        return list.length === 2 ? list : null;
      });
      expect(rows.map((r) => r.state)).toEqual(['runnable', 'needs_approval']);
      // A row evaluated by no rule set has nothing to remember into.
      const plain = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'x',
        provider: script([{ tool_calls: [{ name: 'ls' }] }, { final: 'x' }]),
      });
      const plainRows = await waitFor(async () => {
        const list = await tasksOf(d, plain.body.id);
        return list[0]?.state === 'needs_approval' ? list : null;
      });
      const refused = await d.member.post(
        `${d.ws}/runs/${plain.body.id}/tasks/${plainRows[0]!.key}/approve`,
        { remember: { scope: 'user' } },
      );
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('remember_unavailable');
      expect((await tasksOf(d, plain.body.id))[0]!.state).toBe('needs_approval');
    });

    it('a project document applies only once its exact digest is trusted', async () => {
      d = await kernels.deploy(backend);
      const conversation = await conversationUnder(d, 'read_only');
      const path = `${d.ws}/overlays/project/${d.appId}`;
      const groups = [
        { ruleSetId: 'read_only', rules: [{ verdict: 'allow', tools: ['write_file'] }] },
      ];
      const empty = await d.member.get(path);
      expect(empty.body.active).toBe(false);
      const put = await d.member.put(path, { expected_digest: empty.body.digest, groups });
      expect(put.body).toMatchObject({ active: false, trusted_digest: null });
      const statesOf = async () => {
        const runId = await turn(d, conversation, [
          { tool_calls: [write('src/a.ts')] },
          { final: 'done' },
        ]);
        return (await waitFor(async () => (await tasksOf(d, runId))[0]))!.state;
      };
      expect(await statesOf()).toBe('failed');
      const wrong = await d.member.post(`${path}/trust`, { digest: empty.body.digest });
      expect(wrong.status).toBe(409);
      const trusted = await d.member.post(`${path}/trust`, { digest: put.body.digest });
      expect(trusted.body).toMatchObject({ active: true, trusted_digest: put.body.digest });
      expect(await statesOf()).toBe('runnable');
      const changed = await d.member.put(path, {
        expected_digest: put.body.digest,
        groups: [...groups, { ruleSetId: 'planning', rules: [] }],
      });
      expect(changed.body.active).toBe(false);
      expect(await statesOf()).toBe('failed');
    });

    it('a missing custom set falls back to Baseline without overlays and says so on the run log', async () => {
      d = await kernels.deploy(backend);
      const conversation = await conversationUnder(d, 'house_rules', {
        custom_rule_sets: [{ id: 'other', rules: [] }],
      });
      const runId = await turn(d, conversation, [
        { tool_calls: [{ name: 'read_file', input: { path: 'a' } }] },
        { final: 'done' },
      ]);
      const rows = await waitFor(async () => {
        const list = await tasksOf(d, runId);
        return list[0] ? list : null;
      });
      expect(rows[0]!.state).toBe('needs_approval');
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events?limit=100`)).body.events;
      const fallback = events.filter((e: { type: string }) => e.type === 'run.rule_set_fallback');
      expect(fallback).toHaveLength(1);
      expect(fallback[0].data).toMatchObject({ rule_set: 'house_rules', reason: 'missing' });
    });

    it('serializes a sequential tool per run and mutations per path at claim time', async () => {
      d = await kernels.deploy(backend);
      const manifest = [
        ...MANIFEST,
        {
          name: 'migrate',
          input_schema: { type: 'object' },
          risk_traits: ['execute'],
          execution: 'sequential',
        },
      ];
      const put = await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'bypass',
        tool_manifest: manifest,
        project_root: '/repo',
      });
      expect(put.status).toBe(200);
      const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id;
      const runId = await turn(d, conversation, [
        {
          tool_calls: [
            { name: 'migrate', input: {} },
            { name: 'migrate', input: {} },
            write('src/a.ts'),
            write('/repo/src/./a.ts'),
            write('src/b.ts'),
          ],
        },
        { final: 'done' },
      ]);
      const rows = await waitFor(async () => {
        const list = await tasksOf(d, runId);
        return list.length === 5 && list.every((r) => r.state === 'runnable') ? list : null;
      });
      const claim = (key: string) =>
        d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${key}/claim`);
      const [m1, m2, w1, w2, w3] = rows.map((r) => r.key) as [
        string,
        string,
        string,
        string,
        string,
      ];
      const first = await claim(m1);
      expect(first.status).toBe(200);
      const blocked = await claim(m2);
      expect(blocked.status).toBe(409);
      expect(blocked.body.error.detail).toMatch(/sequential tool or one of its paths/);
      const wa = await claim(w1);
      expect(wa.status).toBe(200);
      expect((await claim(w2)).status).toBe(409);
      expect((await claim(w3)).status).toBe(200);
      await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${m1}/commit`, {
        claim_id: first.body.claim_id,
        outcome: 'succeeded',
        result: 'ok',
      });
      expect((await claim(m2)).status).toBe(200);
      await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/${w1}/commit`, {
        claim_id: wa.body.claim_id,
        outcome: 'failed',
        error: { code: 'tool_failed', detail: 'disk full' },
      });
      expect((await claim(w2)).status).toBe(200);
    });
  });
}
