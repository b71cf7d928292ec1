import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, putOverlay, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

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
    },
    risk_traits: ['write'],
    targets: [{ pointer: '/path', kind: 'path' }],
  },
];

const WRITE = { path: 'src/a.ts', content: 'x' };
const RM = { command: 'rm -rf build' };

/*
 * The rule set an application selected and its action contract govern what its model asks
 * for; a row a member appends through the tasks door is the member's own act, bound by the
 * declared rules naming origin author, the admins' guardrails and the approval policy
 * (docs/rules.md, "Author rows"). These cases pin that reading.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `author rows and the policy layers (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it("the run's rule set and contract refuse the model's calls, not a member's appended ones", async () => {
        d = await deploy(backend);
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          tool_manifest: MANIFEST,
          permission_rule_set: 'read_only',
          project_root: '/repo',
          action_contract: {
            contract_version: 1,
            authorization: { forbidden: ['action:destructive'] },
          },
          input: 'tidy up',
          provider: {
            kind: 'scripted',
            rounds: [
              {
                tool_calls: [
                  { name: 'read_file', input: { path: 'README.md' } },
                  { name: 'write_file', input: WRITE },
                  { name: 'bash', input: RM },
                ],
              },
              { final: 'done' },
            ],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        const tasks = `${d.ws}/runs/${runId}/tasks`;
        const model = await waitFor(async () => {
          const rows = (await d.member.get(tasks)).body.tasks as {
            state: string;
            decision: { layer?: string; layers?: { layer: string; verdict: string }[] };
          }[];
          return rows.length === 3 && rows.every((row) => row.state !== 'ready') ? rows : null;
        });
        expect(model.map((row) => row.state)).toEqual(['needs_approval', 'failed', 'failed']);
        expect(model[1]?.decision.layer).toBe('rule_set');
        expect(model[2]?.decision.layers).toContainEqual(
          expect.objectContaining({ layer: 'action_contract', verdict: 'deny' }),
        );

        const write = await d.member.post(tasks, { tool_name: 'write_file', tool_input: WRITE });
        expect(write.status).toBe(201);
        expect(write.body).toMatchObject({ origin: 'author', state: 'runnable' });
        const rm = await d.member.post(tasks, { tool_name: 'bash', tool_input: RM });
        expect(rm.status).toBe(201);
        expect(rm.body).toMatchObject({ origin: 'author', state: 'runnable' });

        // An admin's guardrail binds a member's own rows all the same.
        const guardrail = [
          {
            ruleSetId: 'read_only',
            rules: [{ verdict: 'deny', guardrail: true, tools: ['bash'] }],
          },
        ];
        expect((await putOverlay(d.member, `${d.ws}/overlays/user/me`, guardrail)).status).toBe(
          200,
        );
        const again = await d.member.post(tasks, { tool_name: 'bash', tool_input: RM });
        expect(again.status).toBe(201);
        expect(again.body).toMatchObject({ origin: 'author', state: 'failed' });
        expect(again.body.error.code).toBe('approval_denied');
      });
    },
  );
}
