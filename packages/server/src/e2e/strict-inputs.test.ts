import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../api/input-guard.js';
import type { Deployment } from '../testing/harness.js';
import { deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** Nested arrays `levels` deep: `[[[...]]]`, as JSON text. */
function nestedText(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

/** A body whose `field` holds `levels` levels of nesting, spliced in as raw JSON text. */
function withNested(body: Record<string, unknown>, field: string, levels: number): string {
  const text = JSON.stringify({ ...body, [field]: '@@' });
  return text.replace('"@@"', nestedText(levels));
}

async function raw(d: Deployment, token: string, method: string, path: string, body: string) {
  const response = await fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, body: await response.json() };
}

/** A tRPC call's kernel error code (its `data.error.code`). */
async function trpc(d: Deployment, token: string, procedure: string, body: string) {
  const answer = await raw(d, token, 'POST', `/trpc/${procedure}`, body);
  return { status: answer.status, code: answer.body?.error?.data?.error?.code, body: answer.body };
}

const parkOne = {
  approval_mode: 'ask',
  input: 'x',
  provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }] },
};

describe('strict inputs at the door', () => {
  let d: Deployment;
  let runId: string;
  beforeAll(async () => {
    d = await deploy(sqlite!, { bodyLimit: 4 * 1024 * 1024 });
    runId = (await d.agent.post(`${d.ws}/runs`, parkOne)).body.id;
  });
  afterAll(async () => {
    await d.close();
  });

  async function runCount(): Promise<number> {
    return (await d.member.get(`${d.ws}/runs?limit=1000`)).body.runs.length;
  }

  it('refuses 5,000 levels of nesting in runs.create over REST and tRPC with input_too_deep', async () => {
    const before = await runCount();
    const deepCall = JSON.stringify({
      ...parkOne,
      provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy', input: '@@' }] }] },
    }).replace('"@@"', nestedText(5000));
    const rest = await raw(d, d.tokens.agent, 'POST', `${d.ws}/runs`, deepCall);
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe('input_too_deep');
    const withWorkspace = deepCall.replace('{', `{"workspace_id":"${d.workspaceId}",`);
    const viaTrpc = await trpc(d, d.tokens.agent, 'runs.create', withWorkspace);
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.code).toBe('input_too_deep');
    expect(await runCount()).toBe(before);
  });

  it('accepts nesting up to the documented limit and refuses one level more', async () => {
    // The body is level 1, provider 2, rounds 3, a round 4, tool_calls 5, a call 6, its input 7.
    const body = (levels: number) =>
      JSON.stringify({
        ...parkOne,
        provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy', input: '@@' }] }] },
      }).replace('"@@"', `{"a":${nestedText(levels - 7)}}`);
    const atLimit = await raw(d, d.tokens.agent, 'POST', `${d.ws}/runs`, body(MAX_JSON_DEPTH));
    expect(atLimit.status).toBe(201);
    const over = await raw(d, d.tokens.agent, 'POST', `${d.ws}/runs`, body(MAX_JSON_DEPTH + 1));
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('input_too_deep');
  });

  it("refuses deep tool_input on tasks.append and a deep commit result; the row doesn't move", async () => {
    const append = withNested({ tool_name: 'note' }, 'tool_input', 5000);
    const rest = await raw(d, d.tokens.member, 'POST', `${d.ws}/runs/${runId}/tasks`, append);
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe('input_too_deep');
    const viaTrpc = await trpc(
      d,
      d.tokens.member,
      'tasks.append',
      append.replace('{', `{"workspace_id":"${d.workspaceId}","run_id":"${runId}",`),
    );
    expect(viaTrpc.code).toBe('input_too_deep');
    const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
    expect(tasks.map((t: { key: string }) => t.key)).toEqual(['t1']);

    await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
    const claim = await d.executor.post(`/executor_api/v1/runs/${runId}/tasks/t1/claim`);
    expect(claim.status).toBe(200);
    const path = `/executor_api/v1/runs/${runId}/tasks/t1/commit`;
    const commit = withNested(
      { claim_id: claim.body.claim_id, outcome: 'succeeded' },
      'result',
      5000,
    );
    const committed = await raw(d, d.tokens.executor, 'POST', path, commit);
    expect(committed.status).toBe(400);
    expect(committed.body.error.code).toBe('input_too_deep');
    const viaTrpcCommit = await trpc(
      d,
      d.tokens.executor,
      'executor.commit',
      commit.replace('{', `{"run_id":"${runId}","task_key":"t1",`),
    );
    expect(viaTrpcCommit.code).toBe('input_too_deep');
    expect((await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state).toBe('claimed');
  });

  it('refuses __proto__ on runs.create over REST: no bypass run is made', async () => {
    const before = await runCount();
    const body = JSON.stringify({ ...parkOne, approval_mode: undefined }).replace(
      '{',
      '{"__proto__":{"approval_mode":"bypass"},',
    );
    const rest = await raw(d, d.tokens.agent, 'POST', `${d.ws}/runs`, body);
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe('invalid_input');
    expect(rest.body.error.problems[0].pointer).toBe('/__proto__');
    const nested = await raw(
      d,
      d.tokens.agent,
      'POST',
      `${d.ws}/runs`,
      JSON.stringify(parkOne).replace('"provider":{', '"provider":{"__proto__":{},'),
    );
    expect(nested.body.error.code).toBe('invalid_input');
    expect(await runCount()).toBe(before);
  });

  it('refuses __proto__ on the profile PUT over REST and tRPC alike; nothing is stored', async () => {
    const body = '{"__proto__":{"approval_mode":"bypass"},"approval_mode":"ask"}';
    const rest = await raw(d, d.tokens.agent, 'PUT', '/agent_api/v1/profile/configuration', body);
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe('invalid_input');
    const viaTrpc = await trpc(d, d.tokens.agent, 'profile.put', body);
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.code).toBe('invalid_input');
    const stored = await d.agent.get('/agent_api/v1/profile/configuration');
    expect(stored.body).toBeNull();
  });

  it('refuses __proto__ in a query string', async () => {
    const answer = await d.member.get(`${d.ws}/runs?__proto__=x`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_input');
  });

  it('refuses a query string on a route that reads its input from the body; the row does not move', async () => {
    const parked = (await d.agent.post(`${d.ws}/runs`, parkOne)).body.id;
    // A version or a reason put in the query would be dropped unread: an approve no longer bound
    // to the row the person saw, a denial without its reason.
    const approve = await d.member.post(
      `${d.ws}/runs/${parked}/tasks/t1/approve?version=not-the-row`,
      {},
    );
    expect(approve.status).toBe(400);
    expect(approve.body.error).toMatchObject({
      code: 'invalid_input',
      problems: [{ code: 'unrecognized_keys', pointer: '/version' }],
    });
    const deny = await d.member.post(`${d.ws}/runs/${parked}/tasks/t1/deny?reason=no`, {});
    expect(deny.status).toBe(400);
    expect(deny.body.error.code).toBe('invalid_input');
    expect((await d.member.get(`${d.ws}/runs/${parked}/tasks/t1`)).body.state).toBe(
      'needs_approval',
    );
  });

  it('answers a request of a few hundred thousand bad items in kilobytes, naming how many', async () => {
    const items = Array.from({ length: 300_000 }, (_, i) => i);
    const created = await raw(
      d,
      d.tokens.agent,
      'POST',
      `${d.ws}/runs`,
      JSON.stringify({ ...parkOne, tool_names: items }),
    );
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('invalid_input');
    expect(created.body.error.problems).toHaveLength(50);
    expect(created.body.error.detail).toContain('(300000 problems; the first 50 are listed)');
    expect(JSON.stringify(created.body).length).toBeLessThan(16_384);
    const viaTrpc = await trpc(
      d,
      d.tokens.agent,
      'runs.create',
      JSON.stringify({ ...parkOne, tool_names: items }),
    );
    expect(viaTrpc.code).toBe('invalid_input');
    expect(JSON.stringify(viaTrpc.body).length).toBeLessThan(32_768);

    // A profile past its 64 KiB envelope is refused for that alone, not item by item.
    const profile = await raw(
      d,
      d.tokens.agent,
      'PUT',
      '/agent_api/v1/profile/configuration',
      JSON.stringify({ approval_mode: 'rules', approval_rules: items }),
    );
    expect(profile.status).toBe(422);
    expect(profile.body.error.problems.map((p: { code: string }) => p.code)).toEqual([
      'envelope_too_large',
    ]);
  });
});
