import { createClient } from '@airlock/sdk';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { run, setTracingDisabled } from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appAgent, ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * An Agents SDK application that rejects an Airlock park itself
 * (`state.reject(item)`) or drops the run: the runner never invokes the call,
 * so only `withdraw` can tell Airlock. (Before, nothing could: the park
 * stayed in the inbox, and a person could approve a call nothing would run.)
 */
describe('Agents SDK: withdrawing a park the application rejects itself', () => {
  let k: FrameworkKernel | undefined;
  beforeAll(() => setTracingDisabled(true));
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('its row is canceled, the inbox no longer asks, and the call never runs', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-withdraw' });
    const model = new ScriptedModel([
      { call: { id: 'x1', name: 'send_email', input: { to: 'all@example.com' } } },
      { text: 'not sent' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    const first = await run(agent, 'do the thing');
    expect(first.interruptions).toHaveLength(1);

    for (const item of first.interruptions) first.state.reject(item, { message: 'not today' });
    await airlock.withdraw(first.interruptions);
    await run(agent, first.state);

    expect(ran).toEqual([]);
    expect(model.lastInput()).toContain('not today');
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({
      tool_call_id: 'x1',
      state: 'canceled',
      error: {
        code: 'canceled',
        detail: 'the application rejected the call in its paused Agents SDK run',
      },
    });
    const { kernel } = k;
    const member = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    expect(await member.workspace(kernel.workspace.id).decisions.list()).toEqual([]);
    expect(airlock.verdictsHeld).toBe(0);
  });

  it('an approval of its own (state.approve in place of resume) runs nothing: the model reads why, and the park is withdrawn', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-own-approve' });
    const model = new ScriptedModel([
      { call: { id: 'x2', name: 'send_email', input: { to: 'all@example.com' } } },
      { text: 'not sent' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    const first = await run(agent, 'do the thing');
    expect(first.interruptions).toHaveLength(1);

    for (const item of first.interruptions) first.state.approve(item);
    await run(agent, first.state);
    await airlock.flush();

    expect(ran).toEqual([]);
    expect(model.lastInput()).toContain('the application approved this call itself');
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_call_id: 'x2', state: 'canceled' });
    const { kernel } = k;
    const member = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    expect(await member.workspace(kernel.workspace.id).decisions.list()).toEqual([]);
  });
});
