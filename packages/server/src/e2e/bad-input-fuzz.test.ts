import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

describe('arbitrary request bodies never reach a 500', () => {
  let d: Deployment;
  let runId: string;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }],
      },
    });
    runId = created.body.id;
  });
  afterAll(async () => {
    await d.close();
  });

  it('answers every JSON value and raw text with 2xx or 4xx', async () => {
    const body = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 64 }),
      fc.record({ reason: fc.anything() }).map((value) => JSON.stringify(value) ?? '{}'),
    );
    const member = ['deny', 'resolution', 'retry'].map(
      (verb) => `${d.ws}/runs/${runId}/tasks/t1/${verb}`,
    );
    const paths = [
      ...member.map((path) => [d.member, path] as const),
      [d.member, `${d.ws}/runs`] as const,
      [d.member, `${d.ws}/runs/${runId}/tasks`] as const,
      [d.executor, `/executor_api/v1/runs/${runId}/tasks/t1/commit`] as const,
      [d.executor, '/executor_api/v1/claim'] as const,
    ];
    await fc.assert(
      fc.asyncProperty(body, fc.nat({ max: paths.length - 1 }), async (text, index) => {
        const [caller, path] = paths[index]!;
        const answer = await caller.call('POST', path, text);
        expect(answer.status).toBeLessThan(500);
        if (answer.status >= 400) expect(typeof answer.body.error.code).toBe('string');
      }),
      { numRuns: 300 },
    );
    const task = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
    expect(['needs_approval', 'failed']).toContain(task.body.state);
  });
});
