import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, putOverlay, waitFor } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

const [sqlite] = await backends();

const deployCall = { name: 'deploy', input: { env: 'prod' } };
const rounds = [{ tool_calls: [deployCall] }, { final: 'done' }];

/*
 * An approve with remember keeps an allow only where it lifts the next identical call's park:
 * not behind the overlay rule that parked it (read first), and not in a project document that
 * never applies because nobody trusted it.
 */
describe('approve and remember, where the remembered allow is read', { timeout: 120_000 }, () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    const put = await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'bypass',
      permission_rule_set: 'supervised',
    });
    expect(put.status).toBe(200);
  });
  afterAll(async () => {
    await d?.close();
  });

  /** The state of a run's first row once the stage decided it. */
  async function firstRowState(runId: string): Promise<string> {
    return waitFor(
      async () => {
        const state = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state as string;
        return state === 'ready' ? null : state;
      },
      { timeoutMs: 60_000, what: `the first row of ${runId} to leave ready` },
    );
  }

  /** A member's own run (its user document applies) calling deploy. */
  async function ownRun(): Promise<string> {
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      permission_rule_set: 'supervised',
      input: 'go',
      provider: { kind: 'scripted', rounds },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  /** A turn of a conversation of the agent application calling deploy. */
  async function turn(conversation: string): Promise<string> {
    const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
      input: 'go',
      provider: { kind: 'scripted', rounds },
    });
    expect(started.status).toBe(201);
    return started.body.id as string;
  }

  async function newConversation(): Promise<string> {
    return (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
  }

  it('refuses remember behind the ask rule of the same user document, changing nothing', async () => {
    const own = `${d.ws}/overlays/user/me`;
    const ask = [{ ruleSetId: 'supervised', rules: [{ verdict: 'ask', tools: ['deploy'] }] }];
    expect((await putOverlay(d.member, own, ask)).status).toBe(200);
    const before = (await d.member.get(own)).body.digest;
    const runId = await ownRun();
    expect(await firstRowState(runId)).toBe('needs_approval');
    const task = `${d.ws}/runs/${runId}/tasks/t1`;
    const refused = await d.member.post(`${task}/approve`, { remember: { scope: 'user' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('remember_unavailable');
    expect(refused.body.error.detail).toContain('rule 0 of group 0 of this user overlay');
    expect((await d.member.get(own)).body.digest).toBe(before);
    expect((await d.member.get(task)).body.state).toBe('needs_approval');
    expect((await putOverlay(d.member, own, [])).status).toBe(200);
  });

  it('refuses remember into a scope read after the conversation rule that parked the call', async () => {
    const conversation = await newConversation();
    const path = `${d.ws}/overlays/conversation/${conversation}`;
    const ask = [{ ruleSetId: 'supervised', rules: [{ verdict: 'ask', tools: ['deploy'] }] }];
    expect((await putOverlay(d.member, path, ask)).status).toBe(200);
    const runId = await turn(conversation);
    expect(await firstRowState(runId)).toBe('needs_approval');
    const task = `${d.ws}/runs/${runId}/tasks/t1`;
    for (const scope of ['project', 'user']) {
      const refused = await d.member.post(`${task}/approve`, { remember: { scope } });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('remember_unavailable');
      expect(refused.body.error.detail).toContain('remember at conversation scope');
    }
    const project = (await d.member.get(`${d.ws}/overlays/project/${d.appId}`)).body;
    expect(project.groups).toEqual([]);
    expect((await d.member.get(task)).body.state).toBe('needs_approval');
  });

  it('remembers into an absent project document that then applies: the next turn runs', async () => {
    const conversation = await newConversation();
    const first = await turn(conversation);
    expect(await firstRowState(first)).toBe('needs_approval');
    const approved = await d.member.post(`${d.ws}/runs/${first}/tasks/t1/approve`, {
      remember: { scope: 'project' },
    });
    expect(approved.status).toBe(200);
    const project = (await d.member.get(`${d.ws}/overlays/project/${d.appId}`)).body;
    expect(project.active).toBe(true);
    expect(project.trusted_digest).toBe(project.digest);
    const next = await turn(await newConversation());
    expect(await firstRowState(next)).toBe('runnable');
  });

  it('refuses remember into a project document holding changes nobody trusted', async () => {
    const path = `${d.ws}/overlays/project/${d.appId}`;
    const read = (await d.member.get(path)).body;
    const proposed = [
      ...read.groups,
      { ruleSetId: 'supervised', rules: [{ verdict: 'allow', tools: ['lint'] }] },
    ];
    expect((await putOverlay(d.member, path, proposed)).status).toBe(200);
    const untrusted = (await d.member.get(path)).body;
    expect(untrusted.active).toBe(false);
    // The document does not apply while untrusted: the rule set asks for deploy again.
    const runId = await turn(await newConversation());
    expect(await firstRowState(runId)).toBe('needs_approval');
    const task = `${d.ws}/runs/${runId}/tasks/t1`;
    const refused = await d.member.post(`${task}/approve`, { remember: { scope: 'project' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('remember_unavailable');
    expect(refused.body.error.detail).toContain('holds changes nobody trusted');
    expect((await d.member.get(path)).body.digest).toBe(untrusted.digest);
    expect((await d.member.get(task)).body.state).toBe('needs_approval');
  });

  it('refuses a rule no overlay takes with 422 remember_unavailable and its problems', async () => {
    const runId = await turn(await newConversation());
    expect(await firstRowState(runId)).toBe('needs_approval');
    const task = `${d.ws}/runs/${runId}/tasks/t1`;
    const refused = await d.member.post(`${task}/approve`, {
      remember: { scope: 'conversation', rule: { targets: ['/etc/**'] } },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('remember_unavailable');
    expect(refused.body.error.problems.length).toBeGreaterThan(0);
    expect((await d.member.get(task)).body.state).toBe('needs_approval');
  });
});
