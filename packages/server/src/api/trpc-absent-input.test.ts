import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

/**
 * A tRPC call sent without input (a client calling `.query()` or `.mutate()`
 * with nothing leaves `input` out) is read as REST reads a request without a
 * body or query string: every field left out, so an operation whose fields
 * are all optional answers as its REST route does.
 */
describe.skipIf(sqlite!.skip !== null)('a tRPC call without input', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  }, 60_000);
  afterAll(async () => {
    await d?.close();
  });

  function trpc(token: string, path: string, method = 'GET'): Promise<Response> {
    return fetch(`${d.url}/trpc/${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
  }

  it('answers a query as its REST route answers a GET without a query string', async () => {
    const rest = await d.executor.get('/executor_api/v1/inbox');
    expect(rest.status).toBe(200);
    const answer = await trpc(d.tokens.executor, 'executor.inbox');
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as Loose).result.data).toEqual(rest.body);
    const profile = await trpc(d.tokens.agent, 'profile.get');
    expect(profile.status).toBe(200);
    expect(((await profile.json()) as Loose).result.data).toBeNull();
  });

  it('answers a mutation as its REST route answers a POST without a body', async () => {
    const answer = await trpc(d.tokens.agent, 'conversations.create', 'POST');
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as Loose).result.data.id).toMatch(/^conv_/);
    const next = await trpc(d.tokens.executor, 'executor.claimNext', 'POST');
    expect(((await next.json()) as Loose).result.data).toEqual({ claim: null });
  });

  it('still checks the schema: a required field left out is invalid_input, as on REST', async () => {
    const answer = await trpc(d.tokens.member, 'runs.list');
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as Loose;
    expect(body.error.data.error.code).toBe('invalid_input');
    expect(body.error.data.error.problems[0].pointer).toBe('/workspace_id');
  });
});
