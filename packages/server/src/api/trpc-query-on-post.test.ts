import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { makeFixture, type RunFixture } from '../testing/run-fixtures.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

/**
 * A tRPC mutation reads its input from the JSON body: a query parameter
 * besides tRPC's own `batch` (an `input`, a `version`) would be dropped
 * unread, so it is refused as REST refuses one on a POST, and nothing changes.
 */
describe.skipIf(sqlite!.skip !== null)('a tRPC mutation with a query string', () => {
  let d: Deployment;
  let run: RunFixture;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    run = await makeFixture(d, 'waiting');
  }, 60_000);
  afterAll(async () => {
    await d?.close();
  });

  const task = () => `${d.ws}/runs/${run.runId}/tasks/${run.taskKey}`;

  function post(path: string, body: unknown): Promise<Response> {
    return fetch(`${d.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.tokens.member}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  it('is refused invalid_input naming the parameter, as on REST, and changes nothing', async () => {
    const input = { workspace_id: d.workspaceId, run_id: run.runId, task_key: run.taskKey };
    const rest = await post(`${task()}/deny?reason=no`, {});
    const restError = ((await rest.json()) as Loose).error;
    const trpc = await post('/trpc/decisions.deny?reason=no', input);
    expect(trpc.status).toBe(400);
    expect(((await trpc.json()) as Loose).error.data.error).toEqual(restError);
    const queried = await post(
      `/trpc/decisions.deny?input=${encodeURIComponent(JSON.stringify(input))}`,
      {},
    );
    expect(queried.status).toBe(400);
    expect(((await queried.json()) as Loose).error.data.error.problems[0].pointer).toBe('/input');
    expect((await d.member.get(task())).body.state).toBe('needs_approval');
  });

  it("still takes tRPC's own batch parameter", async () => {
    const input = { workspace_id: d.workspaceId, run_id: run.runId, task_key: run.taskKey };
    const answer = await post('/trpc/decisions.deny?batch=1', { 0: input });
    expect(answer.status).toBe(200);
    expect((await d.member.get(task())).body.state).toBe('failed');
  });
});
