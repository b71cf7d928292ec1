import { claudeCode, runHook } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

/**
 * A prompt longer than the kernel reads (1,000,000 characters: a pasted log) was refused
 * invalid_input, so its turn did not start and the user was told the event was not recorded.
 * The prompt is now sent cut to what the kernel reads: its turn starts, with the prompt's start
 * as the run's input, from the Node.js client and from the kernel's own hook endpoint alike.
 */

const available = (await backends()).filter((backend) => backend.skip === null);
const PROMPT = `summarize this log:\n${'x'.repeat(1_100_000)}`;

describe.each(available)('a prompt longer than the kernel reads ($name)', (backend) => {
  let d: Deployment;
  afterEach(async () => {
    await d?.close();
  });

  it('starts its turn, with the prompt cut, through the client and the native endpoint', async () => {
    d = await deploy(backend);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [{ tool: '*', verdict: 'allow' }],
    });
    const env = { AIRLOCK_URL: d.url, AIRLOCK_TOKEN: d.tokens.agent, HOME: '/nonexistent' };
    const prompt = { hook_event_name: 'UserPromptSubmit', prompt: PROMPT };
    const viaClient = await runHook({
      protocol: claudeCode,
      env,
      input: JSON.stringify({ session_id: 'long-1', ...prompt }),
    });
    expect(viaClient).toEqual({ stdout: '{}\n', stderr: '', exitCode: 0 });
    const native = await d.agent.post('/agent_api/v1/hooks/claude-code/default', {
      session_id: 'long-2',
      ...prompt,
    });
    expect(native.status).toBe(200);
    expect(native.body).toEqual({});
    const runs = (await d.member.get(`${d.ws}/runs`)).body.runs as { id: string }[];
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      const input = (await d.member.get(`${d.ws}/runs/${run.id}`)).body.input as string;
      expect(input.startsWith('summarize this log:\nxxx')).toBe(true);
      expect(input.length).toBeLessThanOrEqual(1_000_000);
    }
  }, 60_000);
});
