import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { run } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { appAgent, ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A resume while the kernel is down: Airlock gave no decision, so `resume`
 * throws the connection failure and refuses nothing. Once the kernel is back
 * and a person approves, the next resume runs the call. (It used to write
 * `approved: false` / `state.reject` into the framework's state: the call
 * was refused for good, and the person's approval ran nothing.)
 */
describe('a resume while the kernel is out of reach', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('AI SDK: throws connection_failed; after the approval the call runs once', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'outage-ai' });
    const { tools, ran } = appTools();
    const wrapped = airlock.tools(tools);
    const first = await generateText({
      model: scriptedModel([{ call: { id: 'o1', name: 'send_email', input: { to: 'a' } } }]).model,
      tools: wrapped,
      messages: USER,
    });
    const saved = [...USER, ...first.response.messages];
    const approval = await k.parked('send_email');

    await k.kernel.stop();
    await expect(airlock.resume(saved)).rejects.toMatchObject({ code: 'connection_failed' });
    await k.kernel.start();

    await approval.approve();
    const resumed = await airlock.resume(saved);
    expect(resumed.responses).toMatchObject([{ approved: true }]);
    await generateText({
      model: scriptedModel([{ text: 'sent' }]).model,
      tools: wrapped,
      messages: resumed.messages,
      stopWhen: stepCountIs(5),
    });
    expect(ran).toEqual(['send_email']);
  });

  it('OpenAI Agents: throws connection_failed; after the approval the call runs once', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'outage-agents' });
    const model = new ScriptedModel([
      { call: { id: 'o2', name: 'send_email', input: { to: 'a' } } },
      { text: 'sent' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    const first = await run(agent, 'do the thing');
    const approval = await k.parked('send_email');

    await k.kernel.stop();
    await expect(airlock.resume(first.state)).rejects.toMatchObject({
      code: 'connection_failed',
    });
    await k.kernel.start();

    await approval.approve();
    expect(await airlock.resume(first.state)).toMatchObject({ approved: 1, rejected: 0 });
    await run(agent, first.state);
    expect(ran).toEqual(['send_email']);
  });
});
