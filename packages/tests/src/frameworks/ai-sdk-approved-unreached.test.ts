import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, stepCountIs } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A call a person approved whose `execute` finds the kernel out of reach: the call does not
 * run and the model reads why, so the SDK is done with it. The person's approval must not wait
 * for good on a grant nothing will take: the turn's `finish()` withdraws it once the kernel
 * answers again.
 */
describe('an AI SDK call approved in Airlock whose execute cannot reach the kernel', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('does not run; the model reads that Airlock could not decide; finish() withdraws the approval', async () => {
    k = await startFrameworkKernel();
    // Checks that take a grant (a pre_tool that is no look) find no kernel while `down`.
    let down = false;
    const outage: typeof fetch = async (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      if (down && body.includes('"pre_tool"') && !body.includes('"look":true')) {
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const airlock = createAiSdkAirlock({
      ...k.connection,
      sessionId: 'chat-approved-unreached',
      fetch: outage,
    });
    const { tools, ran } = appTools();
    const wrapped = airlock.tools(tools);
    const script = scriptedModel([
      { call: { id: 'u1', name: 'send_email', input: { to: 'ops@example.com' } } },
      { text: 'could not send' },
    ]);
    const first = await generateText({ model: script.model, tools: wrapped, messages: USER });
    const approval = await k.parked('send_email');
    await approval.approve();
    const resumed = await airlock.resume([...USER, ...first.response.messages]);
    expect(resumed.responses).toMatchObject([{ approved: true }]);

    down = true;
    await generateText({
      model: script.model,
      tools: wrapped,
      messages: resumed.messages,
      stopWhen: stepCountIs(3),
    });
    expect(ran).toEqual([]);
    expect(JSON.stringify(script.prompts.at(-1))).toContain('Airlock could not decide this call');

    down = false;
    await airlock.finish('could not send');
    const [row] = await k.tasks(approval.run_id);
    expect(row).toMatchObject({ tool_call_id: 'u1', state: 'canceled' });
  });
});
