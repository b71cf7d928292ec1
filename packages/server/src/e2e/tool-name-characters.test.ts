import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../testing/harness.js';
import { deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();
const PROFILE = '/agent_api/v1/profile/configuration';

describe('a declared tool name with a hidden character is refused', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    expect(
      (await d.agent.put(PROFILE, { approval_mode: 'ask', tool_names: ['read'] })).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await d.close();
  });

  it('refuses a profile (as the MCP bridge registers one) and changes nothing', async () => {
    const before = (await d.agent.get(PROFILE)).body;
    const answer = await d.agent.put(PROFILE, {
      approval_mode: 'ask',
      tool_names: ['read', 'files__read\u202etxt.exe'],
      tool_manifest: [
        { name: 'read', input_schema: {}, risk_traits: [] },
        { name: 'files__\u200bdelete', input_schema: {}, risk_traits: [] },
      ],
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('invalid_configuration');
    expect(answer.body.error.problems).toEqual([
      expect.objectContaining({ code: 'tool_name_hidden_character', pointer: '/tool_names/1' }),
      expect.objectContaining({
        code: 'tool_name_hidden_character',
        pointer: '/tool_manifest/1/name',
      }),
    ]);
    expect((await d.agent.get(PROFILE)).body).toEqual(before);
  });

  it('refuses a run that declares one in its tool_aliases', async () => {
    const before = (await d.member.get(`${d.ws}/runs?limit=1000`)).body.runs.length;
    const answer = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'x',
      tool_aliases: { 'deploy\u0000': 'read' },
      provider: { kind: 'scripted', rounds: [{ final: 'f' }] },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error.problems[0]).toMatchObject({
      code: 'tool_name_hidden_character',
      pointer: '/tool_aliases/deploy\u0000',
    });
    expect((await d.member.get(`${d.ws}/runs?limit=1000`)).body.runs.length).toBe(before);
  });
});
