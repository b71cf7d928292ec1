import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

describe('an approve bound to the row version the person saw', () => {
  let d: Deployment;
  let runId: string;
  let seen: string;
  let current: string;
  const task = () => `${d.ws}/runs/${runId}/tasks/t1`;

  beforeAll(async () => {
    d = await deploy(sqlite!, { parkTtlMs: 2000 });
    runId = (
      await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        on_failure: 'hold',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }],
        },
      })
    ).body.id;
    seen = (await d.member.get(task())).body.version;
    // The park expires and holds the run; a retry parks the row afresh: same state, new version.
    await waitFor(async () => (await d.member.get(task())).body.state === 'timed_out');
    expect((await d.member.post(`${task()}/retry`)).status).toBe(200);
    const reparked = (await d.member.get(task())).body;
    expect(reparked.state).toBe('needs_approval');
    current = reparked.version;
  });
  afterAll(async () => {
    await d.close();
  });

  it('serves the version as an ETag', async () => {
    const response = await fetch(`${d.url}${task()}`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    expect(response.headers.get('etag')).toBe(`"${current}"`);
    expect(current).not.toBe(seen);
  });

  it('answers 409 version_mismatch for a stale version over REST and tRPC, and nothing changes', async () => {
    const stale = await d.member.post(`${task()}/approve`, { version: seen });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('version_mismatch');
    const ifMatch = await fetch(`${d.url}${task()}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.tokens.member}`, 'if-match': `"${seen}"` },
    });
    expect(ifMatch.status).toBe(409);
    const viaTrpc = await fetch(`${d.url}/trpc/decisions.approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.tokens.member}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspace_id: d.workspaceId,
        run_id: runId,
        task_key: 't1',
        version: seen,
      }),
    });
    expect(viaTrpc.status).toBe(409);
    expect(
      ((await viaTrpc.json()) as { error: { data: { error: { code: string } } } }).error.data.error
        .code,
    ).toBe('version_mismatch');
    const after = (await d.member.get(task())).body;
    expect(after.state).toBe('needs_approval');
    expect(after.version).toBe(current);
    const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events;
    expect(events.filter((e: { type: string }) => e.type === 'task.approved')).toEqual([]);
  });

  it('refuses a deny of a stale version the same way, and nothing changes', async () => {
    const stale = await d.member.post(`${task()}/deny`, { version: seen, reason: 'no' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('version_mismatch');
    const after = (await d.member.get(task())).body;
    expect(after.state).toBe('needs_approval');
    expect(after.version).toBe(current);
  });

  it('refuses an If-Match that lists versions or is no entity tag, changing nothing', async () => {
    for (const header of [`"${current}", "${seen}"`, `"${current}`, 'a b']) {
      const refused = await fetch(`${d.url}${task()}/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.tokens.member}`, 'if-match': header },
      });
      expect(refused.status, header).toBe(400);
      const body = (await refused.json()) as { error: { code: string; detail: string } };
      expect(body.error.code).toBe('invalid_input');
      expect(body.error.detail).toMatch(/If-Match names one version/);
    }
    expect((await d.member.get(task())).body.version).toBe(current);
  });

  it('approves with the current version (If-Match) and refuses a conflicting body', async () => {
    const conflicting = await fetch(`${d.url}${task()}/approve`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${d.tokens.member}`,
        'if-match': `"${current}"`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ version: seen }),
    });
    expect(conflicting.status).toBe(400);
    const approved = await fetch(`${d.url}${task()}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.tokens.member}`, 'if-match': `"${current}"` },
    });
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as { state: string }).state).toBe('runnable');
  });

  it('treats If-Match: * as no binding', async () => {
    const other = (
      await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'x' }] }, { final: 'f' }] },
      })
    ).body.id;
    const approved = await fetch(`${d.url}${d.ws}/runs/${other}/tasks/t1/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.tokens.member}`, 'if-match': '*' },
    });
    expect(approved.status).toBe(200);
  });
});
