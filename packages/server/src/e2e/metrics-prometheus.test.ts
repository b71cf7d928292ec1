import { afterEach, describe, expect, it } from 'vitest';
import { client, type Deployment, deploy, waitFor } from '../testing/harness.js';
import {
  prometheusSkipReason,
  type RunningPrometheus,
  startPrometheus,
} from '../testing/prometheus.js';
import { connect } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const all = await backends();
const available = all.filter((backend) => backend.skip === null);
const sqlite = all.find((backend) => backend.name === 'sqlite')!;
const prometheusSkip = prometheusSkipReason();
if (prometheusSkip)
  console.warn(`[airlock tests] skipping the Prometheus scrape: ${prometheusSkip}`);

/** Starts a gateway turn under rules that park writes, grant reads and refuse deletes. */
async function gatewayRun(d: Deployment): Promise<string> {
  await d.agent.put('/agent_api/v1/profile/configuration', {
    approval_mode: 'rules',
    approval_rules: [
      { tool: 'fs__read_*', verdict: 'allow' },
      { tool: 'fs__write_file', verdict: 'ask' },
      { tool: 'fs__delete', verdict: 'deny', reason: 'no deletes here' },
    ],
  });
  const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id;
  const turn = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
    input: 'mcp session',
    provider: { kind: 'gateway', client: 'metrics-test 1.0' },
  });
  expect(turn.status).toBe(201);
  return turn.body.id as string;
}

/** One sample of a metric in Prometheus text, by its labels; undefined when absent. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const has = Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`));
    if (has) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe.each(available)('GET /metrics on $name', (backend) => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('counts decided calls and parks waiting, and answers only a member credential', async () => {
    let offsetMs = 0;
    d = await deploy(backend, { clock: () => Date.now() + offsetMs });
    const runId = await gatewayRun(d);
    const round = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
      calls: [
        { name: 'fs__write_file', input: { path: 'a.txt' } },
        { name: 'fs__read_file', input: { path: 'a.txt' } },
        { name: 'fs__delete' },
      ],
    });
    expect(round.body.tasks.map((task: { state: string }) => task.state)).toEqual([
      'needs_approval',
      'runnable',
      'failed',
    ]);
    await d.member.post(`${d.ws}/runs/${runId}/tasks/t9/approve`);
    // A feed subscriber that has read everything so far.
    const feed = await connect(`${d.url}${d.ws}/feed?after=0`, d.tokens.member);
    await waitFor(async () =>
      feed.messages.some((m) => m.type === 'event' && m.event.type === 'task.denied'),
    );
    // Eleven minutes later the park is still waiting.
    offsetMs = 11 * 60_000;

    expect((await client(d.url, null).get('/metrics')).status).toBe(401);
    const agent = await d.agent.get('/metrics');
    expect(agent.status).toBe(403);
    expect(agent.body.error.code).toBe('forbidden');
    const text = await scrape(d);
    const ws = { workspace: d.workspaceId };
    expect(sample(text, 'airlock_parks_waiting', ws)).toBe(1);
    expect(sample(text, 'airlock_parks_waiting_over', { ...ws, over_seconds: '600' })).toBe(1);
    expect(sample(text, 'airlock_parks_waiting_over', { ...ws, over_seconds: '3600' })).toBe(0);
    expect(sample(text, 'airlock_parks_oldest_age_seconds', ws)).toBeGreaterThanOrEqual(660);
    const decided = (outcome: string) =>
      sample(text, 'airlock_calls_decided_total', { outcome, layer: 'approval_rules' });
    expect([decided('parked'), decided('granted'), decided('denied')]).toEqual([1, 1, 1]);
    expect(sample(text, 'airlock_approval_stage_seconds_count')).toBe(3);
    expect(sample(text, 'airlock_request_seconds_count', { operation: 'runs.calls' })).toBe(1);
    expect(sample(text, 'airlock_errors_total', { code: 'task_not_found' })).toBe(1);
    expect(sample(text, 'airlock_errors_total', { code: 'forbidden' })).toBe(1);
    expect(sample(text, 'airlock_store_commit_seconds_count')).toBeGreaterThan(0);
    if (backend.name === 'sqlite') {
      expect(sample(text, 'airlock_store_commit_batch_units_count')).toBeGreaterThan(0);
    }
    expect(sample(text, 'airlock_feed_subscribers', { state: 'live' })).toBe(1);
    expect(sample(text, 'airlock_feed_subscribers', { state: 'catching_up' })).toBe(0);
    expect(sample(text, 'airlock_feed_lag_events')).toBe(0);
    feed.close();

    // A person's decision empties the gauge and records the wait since the park.
    const approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
    expect(approved.status).toBe(200);
    const later = await scrape(d);
    expect(sample(later, 'airlock_parks_waiting', ws)).toBeUndefined();
    expect(sample(later, 'airlock_park_to_decision_seconds_count', { decision: 'approve' })).toBe(
      1,
    );
    expect(
      sample(later, 'airlock_park_to_decision_seconds_bucket', { decision: 'approve', le: '600' }),
    ).toBe(0);
    expect(
      sample(later, 'airlock_park_to_decision_seconds_bucket', { decision: 'approve', le: '1800' }),
    ).toBe(1);
  });

  it("shows a member its own workspace's parks, never another workspace's", async () => {
    d = await deploy(backend);
    const other = await workspaceWithTokens(d.airlock.store, 'other');
    const parkOne = {
      approval_mode: 'ask',
      input: 'x',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }],
      },
    };
    await d.agent.post(`${d.ws}/runs`, parkOne);
    const elsewhere = client(d.url, other.tokens.agent);
    expect(
      (await elsewhere.post(`/api/v1/workspaces/${other.workspaceId}/runs`, parkOne)).status,
    ).toBe(201);
    const mine = { workspace: d.workspaceId };
    const theirs = { workspace: other.workspaceId };
    await waitFor(async () => sample(await scrape(d), 'airlock_parks_waiting', mine) === 1);
    const text = await scrape(d);
    expect(text).not.toContain(other.workspaceId);
    const asOther = await fetch(`${d.url}/metrics`, {
      headers: { authorization: `Bearer ${other.tokens.member}` },
    });
    const otherText = await asOther.text();
    expect(sample(otherText, 'airlock_parks_waiting', theirs)).toBe(1);
    expect(otherText).not.toContain(d.workspaceId);
    // Nor the kernel's process-wide traffic, which counts every tenant's calls and requests;
    // the operator's --metrics-listen shows it.
    for (const shown of [text, otherText]) {
      expect(shown).toContain('# TYPE airlock_calls_decided_total counter');
      expect(
        shown.split('\n').filter((line) => /^airlock_calls_decided_total\b/.test(line)),
      ).toEqual([]);
      expect(shown).not.toMatch(/^airlock_request_seconds_count/m);
    }
  });

  it('records nothing and serves no /metrics when metrics are off', async () => {
    d = await deploy(backend, { metrics: false });
    expect(d.airlock.metrics).toBeNull();
    const answer = await d.member.get('/metrics');
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('not_found');
  });
});

/** Reads the metrics text with the deployment's member credential. */
async function scrape(d: Deployment): Promise<string> {
  const response = await fetch(`${d.url}/metrics`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

describe.skipIf(prometheusSkip !== null)('a real Prometheus server scraping the kernel', () => {
  let d: Deployment | undefined;
  let prometheus: RunningPrometheus | undefined;
  afterEach(async () => {
    await prometheus?.stop();
    await d?.close();
  });

  it('scrapes --metrics-listen and answers a query for the parks the workload left waiting', async () => {
    d = await deploy(sqlite, { metricsListen: { host: '127.0.0.1', port: 0 } });
    const listener = d.airlock.metricsListener!;
    // The separate address needs no credential and serves nothing else.
    expect((await fetch(listener.url)).status).toBe(200);
    expect((await fetch(listener.url.replace('/metrics', '/healthz'))).status).toBe(404);
    const runId = await gatewayRun(d);
    await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
      calls: [
        { name: 'fs__write_file', input: { path: 'a.txt' } },
        { name: 'fs__write_file', input: { path: 'b.txt' } },
      ],
    });
    prometheus = await startPrometheus(new URL(listener.url).host);
    const query = `sum by (workspace) (airlock_parks_waiting{workspace="${d.workspaceId}"})`;
    const result = await waitFor(
      async () => {
        const vector = await prometheus!.query(query);
        return vector.length > 0 ? vector : null;
      },
      { timeoutMs: 30_000, what: 'Prometheus to scrape the parks waiting' },
    );
    expect(result).toEqual([
      { metric: { workspace: d.workspaceId }, value: [expect.any(Number), '2'] },
    ]);
    const parked = await prometheus.query('sum(airlock_calls_decided_total{outcome="parked"})');
    expect(parked[0]?.value[1]).toBe('2');
    const up = await prometheus.query('up{job="airlock"}');
    expect(up[0]?.value[1]).toBe('1');
  });
});
