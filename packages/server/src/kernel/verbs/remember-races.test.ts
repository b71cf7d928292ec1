import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/*
 * Approvals remembering into one overlay document at the same moment (calls of several turns
 * of one conversation, each run locked on its own) take turns on PostgreSQL: each appends its
 * rule to the document the one before wrote, and none fails on the other's write.
 */
describe.skipIf(postgres.skip !== null)('approvals remembering at once on PostgreSQL', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(postgres);
    const put = await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'bypass',
      permission_rule_set: 'supervised',
    });
    expect(put.status).toBe(200);
  });
  afterAll(async () => {
    await d?.close();
  });

  /** A turn of the conversation whose one call (deploy to `env`) parks; answers its run's id. */
  async function parkedTurn(conversation: string, env: string): Promise<string> {
    const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
      input: 'go',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy', input: { env } }] }, { final: 'done' }],
      },
    });
    expect(started.status).toBe(201);
    const runId = started.body.id as string;
    await waitFor(
      async () =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
      { timeoutMs: 60_000, what: `the deploy to ${env} to park` },
    );
    return runId;
  }

  it('keeps every rule and answers every approve', async () => {
    const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
    const envs = ['a', 'b', 'c', 'd', 'e', 'f'];
    const runs: string[] = [];
    for (const env of envs) runs.push(await parkedTurn(conversation, env));
    const answers = await Promise.all(
      runs.map((runId) =>
        d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {
          remember: { scope: 'conversation' },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(envs.map(() => 200));
    const document = (await d.member.get(`${d.ws}/overlays/conversation/${conversation}`)).body;
    const remembered = document.groups.flatMap(
      (group: { rules: { arguments: { '': { env: string } } }[] }) =>
        group.rules.map((rule) => rule.arguments[''].env),
    );
    expect([...remembered].sort()).toEqual(envs);
  }, 180_000);
});
