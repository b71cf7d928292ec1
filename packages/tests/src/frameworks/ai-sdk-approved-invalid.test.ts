import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, stepCountIs, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * The AI SDK checks an approved call's input against the tool's schema again
 * before it executes it: a call a person approved that no longer fits (the
 * schema changed between the park and the resume) never reaches `execute`,
 * so Airlock's grant for it would wait for good.
 */
describe('an AI SDK call approved in Airlock that the SDK refuses on its own check', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('is withdrawn when the turn finishes, and nothing runs', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-approved-invalid' });
    const { tools, ran } = appTools();
    const script = scriptedModel([
      { call: { id: 'ai1', name: 'send_email', input: { to: 'ops@example.com' } } },
      { text: 'could not send' },
    ]);
    const first = await generateText({
      model: script.model,
      tools: airlock.tools(tools),
      messages: USER,
    });
    await (await k.parked('send_email')).approve();
    // A deploy meanwhile: send_email now needs a subject the parked call does not carry.
    const stricter = tool({
      description: 'send_email',
      inputSchema: z.object({ to: z.string(), subject: z.string() }),
      execute: async () => {
        ran.push('send_email');
        return 'sent';
      },
    });
    const wrapped = airlock.tools({ ...tools, send_email: stricter });
    const resumed = await airlock.resume([...USER, ...first.response.messages]);
    expect(resumed.responses).toMatchObject([{ approved: true }]);
    const second = await generateText({
      model: script.model,
      tools: wrapped,
      messages: resumed.messages,
      stopWhen: stepCountIs(3),
    });
    expect(ran).toEqual([]);
    await airlock.finish(second.text);
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'send_email', state: 'canceled' });
  });
});
