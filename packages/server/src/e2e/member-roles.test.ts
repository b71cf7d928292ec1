import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, client, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/*
 * Admins govern a workspace, approvers decide its calls: an approver cannot mint a second
 * credential to meet a quorum alone, nor rewrite who approves. Both roles decide calls and
 * count toward quorums.
 */

const sqlite = (await backends()).find((backend) => backend.name === 'sqlite')!;

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON loosely and assert on it.
type Loose = any;

const parkOne = {
  approval_mode: 'ask',
  input: 'x',
  provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }] },
};

const GUARDRAIL = [
  {
    ruleSetId: 'supervised',
    rules: [{ verdict: 'deny', tools: ['bash'], guardrail: true, reason: 'no shell' }],
  },
];
const ORDINARY = [{ ruleSetId: 'supervised', rules: [{ verdict: 'allow', tools: ['ls'] }] }];
const EMPTY_DIGEST_OF = async (c: Client, path: string) => (await c.get(path)).body.digest;

describe('member roles (sqlite)', () => {
  let d: Deployment;
  let approverToken: string;
  let approverId: string;
  let approver: Client;

  beforeAll(async () => {
    d = await deploy(sqlite);
    const made = await d.member.post(`${d.ws}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label: 'Ana',
    });
    expect(made.status).toBe(201);
    approverToken = made.body.token;
    approverId = made.body.credential_id;
    approver = client(d.url, approverToken);
  });
  afterAll(async () => {
    await d.close();
  });

  /** What an approver's refused governance could have changed, read by the admin. */
  async function governed() {
    const read = async (path: string) => (await d.member.get(`${d.ws}${path}`)).body;
    return {
      credentials: await read('/credentials?include_revoked=true'),
      applications: await read('/agent_applications'),
      policy: await read('/approval_policy'),
      retention: await read('/retention'),
      project: await read(`/overlays/project/${d.appId}`),
      own: (await approver.get(`${d.ws}/overlays/user/me`)).body,
    };
  }

  it('makes a member credential an approver unless admin is asked for, and shows the role', async () => {
    expect((await d.member.get(`${d.ws}/credentials/self`)).body.role).toBe('admin');
    const self = await approver.get(`${d.ws}/credentials/self`);
    expect(self.body).toMatchObject({ kind: 'member', role: 'approver' });
    const admin = await d.member.post(`${d.ws}/credentials`, {
      kind: 'member',
      role: 'admin',
      label: 'Bo',
    });
    expect(admin.status).toBe(201);
    expect(admin.body.role).toBe('admin');
    const executor = await d.member.post(`${d.ws}/credentials`, { kind: 'executor' });
    expect(executor.body.role).toBeNull();
    const listed = (await d.member.get(`${d.ws}/credentials`)).body.credentials as Loose[];
    const roleOf = (id: string) => listed.find((c) => c.credential_id === id)?.role;
    expect(roleOf(approverId)).toBe('approver');
    expect(roleOf(admin.body.credential_id)).toBe('admin');
    expect(roleOf(executor.body.credential_id)).toBeNull();

    const audit = await fetch(`${d.url}${d.ws}/audit`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    const created = (await audit.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((record) => record.decision === 'credential_created');
    const afterOf = (id: string) => created.find((r) => r.policy.owner_id === id)?.policy.after;
    expect(afterOf(approverId)).toMatchObject({ kind: 'member', role: 'approver', label: 'Ana' });
    expect(afterOf(admin.body.credential_id)).toMatchObject({ role: 'admin' });
    expect(afterOf(executor.body.credential_id)).not.toHaveProperty('role');
  });

  it('refuses a role on a credential that is no member, creating nothing', async () => {
    const before = (await d.member.get(`${d.ws}/credentials`)).body;
    const refused = await d.member.post(`${d.ws}/credentials`, { kind: 'agent', role: 'admin' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_input');
    const unknown = await d.member.post(`${d.ws}/credentials`, { kind: 'member', role: 'root' });
    expect(unknown.status).toBe(400);
    expect((await d.member.get(`${d.ws}/credentials`)).body).toEqual(before);
  });

  it('refuses every act of governance to an approver with 403 admin_required, changing nothing', async () => {
    const before = await governed();
    const admin = (await d.member.get(`${d.ws}/credentials/self`)).body.credential_id;
    const attempts: [string, 'post' | 'put', string, unknown][] = [
      ['credentials.create', 'post', '/credentials', { kind: 'member', role: 'admin' }],
      ['credentials.create', 'post', '/credentials', { kind: 'member' }],
      ['credentials.revoke', 'post', `/credentials/${admin}/revoke`, {}],
      ['credentials.revoke', 'post', `/credentials/${approverId}/revoke`, {}],
      ['credentials.label', 'post', `/credentials/${admin}/label`, { label: 'Mallory' }],
      ['agentApplications.create', 'post', '/agent_applications', { name: 'mine' }],
      ['agentApplications.remove', 'post', `/agent_applications/${d.appId}/remove`, {}],
      [
        'approvalPolicy.replace',
        'put',
        '/approval_policy',
        { policy: { rules: [{ actions: ['destructive'], required: 1 }] } },
      ],
      ['retention.put', 'put', '/retention', { events_days: 1, runs_days: 1, audit_days: 1 }],
      [
        'overlays.replace of a project document',
        'put',
        `/overlays/project/${d.appId}`,
        { expected_digest: before.project.digest, groups: ORDINARY },
      ],
      ['overlays.trust', 'post', `/overlays/project/${d.appId}/trust`, { digest: 'sha256:x' }],
      [
        'a guardrail rule',
        'put',
        '/overlays/user/me',
        { expected_digest: before.own.digest, groups: GUARDRAIL },
      ],
    ];
    for (const [what, method, path, body] of attempts) {
      const refused = await approver[method](`${d.ws}${path}`, body);
      expect({ path, status: refused.status, code: refused.body.error?.code }).toEqual({
        path,
        status: 403,
        code: 'admin_required',
      });
      expect(refused.body.error.detail).toBe(
        `${what} needs a member credential with role admin; this credential's role is approver`,
      );
    }
    expect(await governed()).toEqual(before);
  });

  it('leaves deciding calls and reading to both roles, and an approver its own ordinary rules', async () => {
    const runId = (await d.agent.post(`${d.ws}/runs`, parkOne)).body.id as string;
    await waitFor(async () => {
      const task = await approver.get(`${d.ws}/runs/${runId}/tasks/t1`);
      return task.body.state === 'needs_approval';
    });
    for (const path of [
      '/decisions',
      '/runs',
      `/runs/${runId}`,
      `/runs/${runId}/audit`,
      '/audit',
      '/credentials',
      '/agent_applications',
      '/approval_policy',
      '/retention',
      `/overlays/project/${d.appId}`,
      '/notifications',
    ]) {
      // Some answer JSON lines: only the status is read.
      const answer = await fetch(`${d.url}${d.ws}${path}`, {
        headers: { authorization: `Bearer ${approverToken}` },
      });
      await answer.body?.cancel();
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
    }
    const approved = await approver.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.state).not.toBe('needs_approval');

    const own = await approver.put(`${d.ws}/overlays/user/me`, {
      expected_digest: await EMPTY_DIGEST_OF(approver, `${d.ws}/overlays/user/me`),
      groups: ORDINARY,
    });
    expect(own.status).toBe(200);
    expect(own.body.groups).toEqual(ORDINARY);
  });

  it('refuses an approver remember at project scope, approving nothing; conversation scope stays open', async () => {
    const put = await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'bypass',
      permission_rule_set: 'supervised',
      project_root: '/repo',
    });
    expect(put.status).toBe(200);
    const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
    const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
      input: 'go',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'curl', input: { u: 1 } }] }, { final: 'done' }],
      },
    });
    const runId = started.body.id as string;
    const key = await waitFor(async () => {
      const rows = (await approver.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks as Loose[];
      return rows.find((row) => row.state === 'needs_approval')?.key as string | undefined;
    });
    const project = await d.member.get(`${d.ws}/overlays/project/${d.appId}`);
    const refused = await approver.post(`${d.ws}/runs/${runId}/tasks/${key}/approve`, {
      remember: { scope: 'project' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('admin_required');
    expect((await approver.get(`${d.ws}/runs/${runId}/tasks/${key}`)).body.state).toBe(
      'needs_approval',
    );
    expect((await d.member.get(`${d.ws}/overlays/project/${d.appId}`)).body).toEqual(project.body);
    const kept = await approver.post(`${d.ws}/runs/${runId}/tasks/${key}/approve`, {
      remember: { scope: 'conversation' },
    });
    expect(kept.status).toBe(200);
  });

  it('enforces the roles over tRPC too, with the same code', async () => {
    const call = async (token: string, path: string, input: unknown) => {
      const response = await fetch(`${d.url}/trpc/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      return { status: response.status, body: (await response.json()) as Loose };
    };
    const before = await governed();
    const minted = await call(approverToken, 'credentials.create', {
      workspace_id: d.workspaceId,
      kind: 'member',
    });
    expect(minted.status).toBe(403);
    expect(minted.body.error.data.error.code).toBe('admin_required');
    const policy = await call(approverToken, 'approvalPolicy.replace', {
      workspace_id: d.workspaceId,
      policy: { rules: [] },
    });
    expect(policy.body.error.data.error.code).toBe('admin_required');
    const guardrail = await call(approverToken, 'overlays.replace', {
      workspace_id: d.workspaceId,
      scope: 'user',
      owner_id: 'me',
      expected_digest: before.own.digest,
      groups: GUARDRAIL,
    });
    expect(guardrail.body.error.data.error.code).toBe('admin_required');
    expect(await governed()).toEqual(before);

    const made = await call(d.tokens.member, 'credentials.create', {
      workspace_id: d.workspaceId,
      kind: 'member',
      role: 'admin',
      agent_application_id: null,
    });
    expect(made.status).toBe(200);
    expect(made.body.result.data.role).toBe('admin');
  });
});
