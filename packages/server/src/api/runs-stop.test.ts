import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { runOperatorCli } from '../testing/operator-cli.js';
import { backends } from '../testing/stores.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

const parked = (approval_mode = 'ask') => ({
  approval_mode,
  input: 'go',
  provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'a' }] }, { final: 'done' }] },
});

// A retrying client (its first answer lost) and a second operator stop the same run.
describe.each(await backends())('runs.stop on a run that already ended ($name)', (backend) => {
  let d: Deployment;
  beforeAll(async () => {
    if (backend.skip === null) d = await deploy(backend);
  }, 60_000);
  afterAll(async () => {
    await d?.close();
  });

  async function parkedRun(by = d.member, ws = d.ws): Promise<string> {
    const created = await by.post(`${ws}/runs`, parked());
    expect(created.status).toBe(201);
    return created.body.id;
  }
  const eventCount = async (runId: string) =>
    (await d.member.get(`${d.ws}/runs/${runId}/events?limit=1000`)).body.events.length;

  it.skipIf(backend.skip !== null)(
    'answers the stopped run as it is over REST, again and again, and changes nothing',
    async () => {
      const runId = await parkedRun(d.agent);
      const first = await d.member.post(`${d.ws}/runs/${runId}/stop`);
      expect([first.status, first.body.state]).toEqual([200, 'canceled']);
      const events = await eventCount(runId);
      for (const by of [d.member, d.agent]) {
        const again = await by.post(`${d.ws}/runs/${runId}/stop`);
        expect([again.status, again.body]).toEqual([200, first.body]);
      }
      expect(await eventCount(runId)).toBe(events);
    },
  );

  it.skipIf(backend.skip !== null)('answers a run that completed as it is', async () => {
    const created = await d.member.post(`${d.ws}/runs`, {
      ...parked('bypass'),
      provider: { kind: 'scripted', rounds: [{ final: 'all done' }] },
    });
    const runId = created.body.id;
    const completed = await waitFor(async () => {
      const run = (await d.member.get(`${d.ws}/runs/${runId}`)).body;
      return run.state === 'completed' && run;
    });
    const stopped = await d.member.post(`${d.ws}/runs/${runId}/stop`);
    expect([stopped.status, stopped.body]).toEqual([200, completed]);
  });

  it.skipIf(backend.skip !== null)(
    'answers a stopped run over tRPC, batched with its stop',
    async () => {
      const runId = await parkedRun();
      const input = { workspace_id: d.workspaceId, run_id: runId };
      const answer = await fetch(`${d.url}/trpc/runs.stop,runs.stop?batch=1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.tokens.member}`, 'content-type': 'application/json' },
        body: JSON.stringify({ 0: input, 1: input }),
      });
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as Loose[];
      expect(body.map((one) => one.result?.data?.state)).toEqual(['canceled', 'canceled']);
    },
  );

  it.skipIf(backend.skip !== null)(
    'still answers not found for an unknown run, another workspace and another application',
    async () => {
      const unknown = await d.member.post(`${d.ws}/runs/run_nosuchrun/stop`);
      expect([unknown.status, unknown.body.error.code]).toEqual([404, 'run_not_found']);

      const other = await workspaceWithTokens(d.airlock.store, 'other');
      const otherMember = client(d.url, other.tokens.member);
      const otherWs = `/api/v1/workspaces/${other.workspaceId}`;
      for (const ended of [false, true]) {
        const theirs = await parkedRun(otherMember, otherWs);
        if (ended) await otherMember.post(`${otherWs}/runs/${theirs}/stop`);
        const refused = await d.member.post(`${d.ws}/runs/${theirs}/stop`);
        expect([refused.status, refused.body.error.code]).toEqual([404, 'run_not_found']);
        const state = (await otherMember.get(`${otherWs}/runs/${theirs}`)).body.state;
        expect(state).toBe(ended ? 'canceled' : 'running');
      }

      // A run a member started belongs to no application: not the agent's to stop, ended or not.
      const members = await parkedRun();
      await d.member.post(`${d.ws}/runs/${members}/stop`);
      const fenced = await d.agent.post(`${d.ws}/runs/${members}/stop`);
      expect([fenced.status, fenced.body.error.code]).toEqual([404, 'run_not_found']);
    },
  );

  it.skipIf(backend.skip !== null || backend.name !== 'sqlite')(
    'airlock runs stop of a stopped run exits 0 and says it had already ended',
    async () => {
      const runId = await parkedRun();
      const first = await runOperatorCli(d, ['runs', 'stop', runId]);
      expect([first.code, first.stdout]).toEqual([0, expect.stringMatching(/^stopped: /)]);
      const again = await runOperatorCli(d, ['runs', 'stop', runId]);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/^already ended, nothing to stop: /);
      expect(again.stderr).toBe('');
    },
    120_000,
  );
});
