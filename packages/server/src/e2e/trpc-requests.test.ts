import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TRPC_BATCH } from '../api/trpc-errors.js';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/**
 * What a tRPC request may carry besides its calls' inputs, held to what REST
 * allows: a bounded number of calls in a batch, each query parameter once, a
 * body read as JSON or refused as REST refuses it, a method it does not serve
 * answered 405.
 */

const [sqlite] = await backends();

interface TrpcError {
  error: { data: { httpStatus: number; error: { code: string; detail: string } } };
}

describe('tRPC requests, held to what REST allows', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  });
  afterAll(async () => {
    await d.close();
  });

  /** A run parked on a call, which a stop would end. */
  async function parkedRun(): Promise<string> {
    const run = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'a' }] }, { final: 'f' }] },
    });
    expect(run.status).toBe(201);
    return run.body.id as string;
  }

  /** Posts one batch of `count` stops of a run. */
  function stopBatch(runId: string, count: number): Promise<Response> {
    const inputs = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [i, { workspace_id: d.workspaceId, run_id: runId }]),
    );
    const path = Array.from({ length: count }, () => 'runs.stop').join(',');
    return fetch(`${d.url}/trpc/${path}?batch=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.tokens.member}`, 'content-type': 'application/json' },
      body: JSON.stringify(inputs),
    });
  }

  it(`refuses a batch of more than ${MAX_TRPC_BATCH} calls whole, before any call runs`, async () => {
    const runId = await parkedRun();
    const refused = await stopBatch(runId, MAX_TRPC_BATCH + 1);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as TrpcError;
    expect(body.error.data.error.code).toBe('invalid_input');
    expect(body.error.data.error.detail).toContain(`at most ${MAX_TRPC_BATCH} calls`);
    expect((await d.member.get(`${d.ws}/runs/${runId}`)).body.state).toBe('running');
    // At the bound the batch is served: the first stop ends the run, the others find it ended.
    const served = await stopBatch(runId, MAX_TRPC_BATCH);
    expect((await served.json()) as unknown[]).toHaveLength(MAX_TRPC_BATCH);
    expect((await d.member.get(`${d.ws}/runs/${runId}`)).body.state).toBe('canceled');
  });

  it('refuses a query whose input is given twice, as REST refuses a repeated parameter', async () => {
    const input = (workspaceId: string) =>
      encodeURIComponent(JSON.stringify({ workspace_id: workspaceId }));
    // A proxy in front of the kernel could read the second where tRPC reads the first.
    const answer = await fetch(
      `${d.url}/trpc/runs.list?input=${input(d.workspaceId)}&input=${input('ws_other')}`,
      { headers: { authorization: `Bearer ${d.tokens.member}` } },
    );
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as TrpcError;
    expect(body.error.data.error).toMatchObject({
      code: 'invalid_input',
      detail: 'input: given more than once',
    });
    const once = await fetch(`${d.url}/trpc/runs.list?input=${input(d.workspaceId)}`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    expect(once.status).toBe(200);
  });

  it('refuses a feed resume position past 2^53 or with leading zeros, as the WebSocket feed does', async () => {
    const input = encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId }));
    for (const position of ['99999999999999999999999', '9007199254740993', '0012']) {
      // EventSource sends back the last id it saw as a header; it may be anything a client puts there.
      const answer = await fetch(`${d.url}/trpc/runs.feed?input=${input}`, {
        headers: {
          authorization: `Bearer ${d.tokens.member}`,
          accept: 'text/event-stream',
          'last-event-id': position,
        },
      });
      const text = await answer.text();
      expect(text, position).toContain('event: serialized-error');
      expect(text, position).toContain('"code":"invalid_input"');
      expect(text, position).toContain('/lastEventId');
    }
  });

  it('reads a body as JSON when its type is JSON or none, and refuses any other type with 415', async () => {
    const runId = await parkedRun();
    const input = JSON.stringify({ workspace_id: d.workspaceId, run_id: runId });
    const stop = (headers: Record<string, string>, body: BodyInit) =>
      fetch(`${d.url}/trpc/runs.stop`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.tokens.member}`, ...headers },
        body,
      });
    const stopped = async (id: string) =>
      (await d.member.get(`${d.ws}/runs/${id}`)).body.state === 'canceled';
    const form = new FormData();
    form.set('workspace_id', d.workspaceId);
    form.set('run_id', runId);
    const refusals = [
      await stop({}, form),
      await stop({ 'content-type': 'application/octet-stream' }, input),
      await stop({ 'content-type': 'text/plain' }, input),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(415);
      const body = (await refused.json()) as TrpcError;
      expect(body.error.data.error).toEqual({
        code: 'unsupported_media_type',
        detail: 'send the body as application/json',
      });
    }
    expect(await stopped(runId)).toBe(false);
    // A JSON type with a suffix, or none at all (a byte body): read as JSON, as REST reads it.
    const suffixed = await stop({ 'content-type': 'application/vnd.airlock+json' }, input);
    expect(suffixed.status).toBe(200);
    expect(await stopped(runId)).toBe(true);
    const other = await parkedRun();
    const otherInput = JSON.stringify({ workspace_id: d.workspaceId, run_id: other });
    const untyped = await stop({}, new TextEncoder().encode(otherInput));
    expect(untyped.status).toBe(200);
    expect(await stopped(other)).toBe(true);
  });

  it('answers a method tRPC does not serve with 405 and Allow, as REST does', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      // A body it will not read: the answer comes first, then the connection closes.
      const answer = await fetch(`${d.url}/trpc/runs.list`, {
        method,
        headers: { authorization: `Bearer ${d.tokens.member}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workspace_id: d.workspaceId }),
      });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow'), method).toBe('GET, POST');
      expect(answer.headers.get('content-type'), method).toMatch(/^application\/json/);
      const body = (await answer.json()) as { error: { code: string } };
      expect(body.error.code, method).toBe('method_not_allowed');
    }
  });

  it("answers a refusal with its code's status from the error table, as REST does (410, not tRPC's 412)", async () => {
    const runId = await parkedRun();
    // A resume position the log never reached: feed_position_pruned, 410 in the kernel's table.
    const rest = await d.member.get(`${d.ws}/runs/${runId}/events?after=999999`);
    expect(rest.status).toBe(410);
    expect(rest.body.error.code).toBe('feed_position_pruned');
    const input = encodeURIComponent(
      JSON.stringify({ workspace_id: d.workspaceId, run_id: runId, after: 999999 }),
    );
    const trpc = await fetch(`${d.url}/trpc/runs.events?input=${input}`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    const body = (await trpc.json()) as TrpcError;
    expect(body.error.data.error.code).toBe('feed_position_pruned');
    expect(body.error.data.httpStatus).toBe(410);
    expect(trpc.status).toBe(410);
  });

  it("reads a hook event past the kernel's body limit over tRPC as REST does (the hooks' floor)", async () => {
    // A hook event carries the whole file an agent writes: 16 MiB are read whatever --body-limit says.
    const event = (session: string) =>
      JSON.stringify({
        agent: 'claude-code',
        session_id: session,
        event: 'pre_tool',
        tool_name: 'Write',
        tool_input: { content: 'x'.repeat(1024 * 1024 + 1) },
        tool_use_id: 'u1',
      });
    const post = (path: string, body: string) =>
      fetch(`${d.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.tokens.agent}`, 'content-type': 'application/json' },
        body,
      });
    // The agent declared no profile: both read the event and refuse it for that, not for its size.
    const rest = await post('/agent_api/v1/hooks/events', event('s-rest'));
    expect(rest.status).toBe(409);
    expect(((await rest.json()) as { error: { code: string } }).error.code).toBe(
      'no_profile_configuration',
    );
    const trpc = await post('/trpc/hooks.event', event('s-trpc'));
    expect(((await trpc.json()) as TrpcError).error.data.error.code).toBe(
      'no_profile_configuration',
    );
    expect(trpc.status).toBe(409);
  });
});
