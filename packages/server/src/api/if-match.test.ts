import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { makeFixture } from '../testing/run-fixtures.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/**
 * `If-Match` binds a write to the row version its caller read. A write that
 * takes no version cannot be bound, so it refuses the header rather than act
 * on the row whatever it is now (as a POST refuses a query string it would
 * not read); `If-Match: *` binds nothing and is served.
 */
describe.skipIf(sqlite!.skip !== null)('If-Match on a write that takes no version', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  }, 60_000);
  afterAll(async () => {
    await d?.close();
  });

  function post(path: string, body: unknown, ifMatch: string): Promise<Response> {
    return fetch(`${d.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${d.tokens.member}`,
        'content-type': 'application/json',
        'if-match': ifMatch,
      },
      body: JSON.stringify(body),
    });
  }

  it('is refused invalid_input, and the write changes nothing', async () => {
    const question = await makeFixture(d, 'question');
    const task = `${d.ws}/runs/${question.runId}/tasks/${question.taskKey}`;
    const read = await fetch(`${d.url}${task}`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    const etag = read.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    for (const [path, body] of [
      [`${task}/resolution`, { content: 'Now' }],
      [`${d.ws}/runs/${question.runId}/stop`, {}],
    ] as const) {
      const answer = await post(path, body, etag!);
      expect(answer.status, path).toBe(400);
      const { error } = (await answer.json()) as { error: { code: string; detail: string } };
      expect(error.code).toBe('invalid_input');
      expect(error.detail).toContain('If-Match');
    }
    expect((await d.member.get(task)).body.state).toBe('awaiting_input');
    expect((await d.member.get(`${d.ws}/runs/${question.runId}`)).body.state).toBe('running');
  });

  it('is served when it binds nothing (If-Match: *)', async () => {
    const question = await makeFixture(d, 'question');
    const task = `${d.ws}/runs/${question.runId}/tasks/${question.taskKey}`;
    const answer = await post(`${task}/resolution`, { content: 'Now' }, '*');
    expect(answer.status).toBe(200);
  });
});
