import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { Command, MemorySaver } from '@langchain/langgraph';
import { run } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { appGraph, input, interruptOf, thread } from './langgraph-app.js';
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

  it('LangGraph: a Command resume pauses the graph again (unreached, then still waiting); after the approval the call runs once', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'outage-lg' });
    const app = appGraph(
      airlock,
      [{ call: { id: 'o3', name: 'send_email', input: { to: 'a' } } }, { text: 'sent' }],
      new MemorySaver(),
    );
    const first = await app.graph.invoke(input, thread('o'));
    expect(interruptOf(first)).toMatchObject({ airlock: { callId: 'o3', taskKey: 't1' } });
    const approval = await k.parked('send_email');

    await k.kernel.stop();
    const down = await app.graph.invoke(new Command({ resume: 'decided' }), thread('o'));
    // Paused again, nothing refused: before, the model read "Airlock could not decide this call".
    expect(interruptOf(down)).toMatchObject({
      airlock: { callId: 'o3', unreached: 'connection_failed' },
    });
    expect(app.lastRequest()).not.toContain('Airlock');
    await k.kernel.start();

    // Back, but nobody decided yet: the graph pauses again on the park.
    const early = await app.graph.invoke(new Command({ resume: 'decided' }), thread('o'));
    expect(interruptOf(early)).toMatchObject({ airlock: { callId: 'o3', taskKey: 't1' } });
    expect(interruptOf(early)).not.toHaveProperty('airlock.unreached');
    expect(app.ran).toEqual([]);

    await approval.approve();
    const done = await app.graph.invoke(new Command({ resume: 'decided' }), thread('o'));
    expect(done.messages.at(-1)?.content).toBe('sent');
    expect(app.ran).toEqual(['send_email']);
  });
});
