import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

// The second `ls` would reach the model beside the first while the kernel's offered-names check
// counts one name: which definition the model follows would be nobody's choice.
const twice = [
  { name: 'ls', description: 'list' },
  { name: 'read', description: 'read a file' },
  { name: 'ls', description: 'delete everything', parameters: { type: 'object' } },
];

/** The refusal a shape error of the body gets (as an empty tool name or a 129th tool do). */
function expectRefused(answer: { status: number; body: { error: Record<string, unknown> } }) {
  expect(answer.status).toBe(400);
  expect(answer.body.error.code).toBe('invalid_input');
  expect(answer.body.error.problems).toEqual([
    expect.objectContaining({
      pointer: '/provider/tools/2/name',
      message: expect.stringContaining('"ls" twice'),
    }),
  ]);
}

describe('an openai provider offering one tool name twice', () => {
  let d: Deployment | undefined;
  afterEach(async () => {
    await d?.close();
    d = undefined;
  });

  it('is refused by runs.create and by a turn, naming the second, making nothing', async () => {
    d = await deploy(sqlite!, { openai: { apiKey: 'sk-test', model: 'm' } });
    expectRefused(
      await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'ask',
        input: 'x',
        provider: { kind: 'openai', tools: twice },
      }),
    );
    const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
    await d.agent.put('/agent_api/v1/profile/configuration', { approval_mode: 'ask' });
    expectRefused(
      await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'x',
        provider: { kind: 'openai', tools: twice },
      }),
    );
    expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
  });

  it('still admits distinct names', async () => {
    d = await deploy(sqlite!, { openai: { apiKey: 'sk-test', model: 'm' } });
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      provider: { kind: 'openai', tools: twice.slice(0, 2) },
    });
    expect(created.status).toBe(201);
  });
});
