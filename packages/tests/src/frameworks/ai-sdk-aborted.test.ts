import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, stepCountIs } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * The application aborts the generation (`abortSignal`, a user pressing stop) while the adapter
 * asks Airlock about a call. The AI SDK still calls `execute` (with the aborted signal) once
 * the answer comes: a grant that came late must not run a tool the user stopped.
 */
describe('an AI SDK generation aborted while Airlock is asked', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  /** A fetch that aborts `controller` as a check that takes a grant goes out. */
  const abortingAt = (controller: AbortController): typeof fetch => {
    return async (url, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      if (body.includes('"pre_tool"') && !body.includes('"look":true')) {
        controller.abort(new Error('the user pressed stop'));
      }
      return fetch(url, init);
    };
  };

  it('a call just made: the grant runs nothing, and its row says it did not run', async () => {
    k = await startFrameworkKernel();
    const controller = new AbortController();
    const airlock = createAiSdkAirlock({
      ...k.connection,
      sessionId: 'chat-aborted-fresh',
      fetch: abortingAt(controller),
    });
    const { tools, ran } = appTools();
    const script = scriptedModel([
      { call: { id: 'ab1', name: 'lookup', input: { q: 'x' } } },
      { text: 'done' },
    ]);
    await generateText({
      model: script.model,
      tools: airlock.tools(tools),
      messages: USER,
      stopWhen: stepCountIs(3),
      abortSignal: controller.signal,
    }).catch(() => undefined);
    expect(ran).toEqual([]);
    await airlock.flush();
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_call_id: 'ab1', state: 'failed' });
    expect(JSON.stringify(row)).toContain('did not run');
  });

  it('a parked call a person approved, resumed and aborted: it does not run', async () => {
    k = await startFrameworkKernel();
    const controller = new AbortController();
    let abortNow = false;
    const airlock = createAiSdkAirlock({
      ...k.connection,
      sessionId: 'chat-aborted-resumed',
      fetch: (url, init) => (abortNow ? abortingAt(controller) : fetch)(url, init),
    });
    const { tools, ran } = appTools();
    const wrapped = airlock.tools(tools);
    const script = scriptedModel([
      { call: { id: 'ab2', name: 'send_email', input: { to: 'ops@example.com' } } },
      { text: 'sent' },
    ]);
    const first = await generateText({ model: script.model, tools: wrapped, messages: USER });
    await (await k.parked('send_email')).approve();
    const resumed = await airlock.resume([...USER, ...first.response.messages]);
    abortNow = true;
    await generateText({
      model: script.model,
      tools: wrapped,
      messages: resumed.messages,
      stopWhen: stepCountIs(3),
      abortSignal: controller.signal,
    }).catch(() => undefined);
    expect(ran).toEqual([]);
    await airlock.flush();
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_call_id: 'ab2', state: 'failed' });
    expect(JSON.stringify(row)).toContain('did not run');
  });
});
