import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { RunState, run, setTracingDisabled } from '@openai/agents';
import { generateText } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { appAgent, ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A resume whose adapter names another session than the one its call was
 * parked under (a sessionId not kept with the saved state): Airlock holds no
 * row for the call there, so it has no decision to give. The resume throws
 * `task_not_found` and answers nothing, and the same state resumed under the
 * right session runs the approved call once. (The resume rejected the call
 * in the framework's state, so a call a person approved never ran.)
 */
describe('a resume under another session than the park', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  const EMAIL = { call: { id: 'o1', name: 'send_email', input: { to: 'a@b.c' } } };

  it('AI SDK: throws task_not_found and answers nothing; the right session runs the call', async () => {
    k = await startFrameworkKernel();
    const parkedUnder = createAiSdkAirlock({ ...k.connection, sessionId: 'other-ai' });
    const first = await generateText({
      model: scriptedModel([EMAIL]).model,
      tools: parkedUnder.tools(appTools().tools),
      messages: USER,
    });
    const saved = [...USER, ...first.response.messages];
    await (await k.parked('send_email')).approve();

    const wrong = createAiSdkAirlock({ ...k.connection, sessionId: 'not-the-park' });
    wrong.tools(appTools().tools);
    await expect(wrong.resume(saved)).rejects.toMatchObject({ code: 'task_not_found' });

    const right = createAiSdkAirlock({ ...k.connection, sessionId: 'other-ai' });
    const app = appTools();
    const tools = right.tools(app.tools);
    const resumed = await right.resume(saved);
    expect(resumed.responses).toMatchObject([{ approved: true }]);
    await generateText({
      model: scriptedModel([{ text: 'sent' }]).model,
      tools,
      messages: resumed.messages,
    });
    expect(app.ran).toEqual(['send_email']);
  });

  it('OpenAI Agents: throws task_not_found and rejects nothing; the right session runs the call', async () => {
    setTracingDisabled(true);
    k = await startFrameworkKernel();
    const parkedUnder = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'other-ag' });
    const first = await run(appAgent(parkedUnder, new ScriptedModel([EMAIL])).agent, 'go');
    const saved = first.state.toString();
    await (await k.parked('send_email')).approve();

    const wrong = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'not-the-park' });
    const wrongApp = appAgent(wrong, new ScriptedModel([{ text: 'sent' }]));
    const state = await RunState.fromString(wrongApp.agent, saved);
    await expect(wrong.resume(state)).rejects.toMatchObject({ code: 'task_not_found' });

    const right = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'other-ag' });
    const app = appAgent(right, new ScriptedModel([{ text: 'sent' }]));
    const again = await RunState.fromString(app.agent, saved);
    expect(await right.resume(again)).toMatchObject({ approved: 1, rejected: 0 });
    await run(app.agent, again);
    expect(app.ran).toEqual(['send_email']);
  });
});
