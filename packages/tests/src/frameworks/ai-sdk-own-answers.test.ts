import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/** The tool-approval-response parts an application writes itself, for each open request. */
function ownAnswers(messages: ModelMessage[], approved: boolean): ModelMessage {
  const content = messages.flatMap((message) =>
    Array.isArray(message.content)
      ? message.content.flatMap((part) =>
          part.type === 'tool-approval-request'
            ? [{ type: 'tool-approval-response' as const, approvalId: part.approvalId, approved }]
            : [],
        )
      : [],
  );
  return { role: 'tool', content };
}

/**
 * The application answers the AI SDK's approval request of a call Airlock
 * parked with its own response instead of Airlock's decision: the SDK is then
 * done with the call (a denial is never executed; an approval is refused by
 * the adapter), so Airlock must not keep asking a person about it.
 */
describe('an AI SDK application that answers a park itself', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  /** Parks send_email and answers its approval request with the application's own response. */
  const parkAndAnswer = async (sessionId: string, approved: boolean) => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId });
    const { tools, ran } = appTools();
    const wrapped = airlock.tools(tools);
    const script = scriptedModel([
      { call: { id: 'own1', name: 'send_email', input: { to: 'ops@example.com' } } },
      { text: 'answered' },
    ]);
    const first = await generateText({ model: script.model, tools: wrapped, messages: USER });
    const messages = [...USER, ...first.response.messages];
    return {
      airlock,
      ran,
      wrapped,
      script,
      messages: [...messages, ownAnswers(messages, approved)],
    };
  };

  it('an approval of its own runs nothing, and the park is withdrawn', async () => {
    const { airlock, ran, wrapped, script, messages } = await parkAndAnswer('own-approve', true);
    await generateText({ model: script.model, tools: wrapped, messages, stopWhen: stepCountIs(3) });
    expect(ran).toEqual([]);
    await airlock.flush();
    const [row] = await (k as FrameworkKernel).tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'send_email', state: 'canceled' });
  });

  it('a denial of its own: resume withdraws the park, and nothing runs', async () => {
    const { airlock, ran, wrapped, script, messages } = await parkAndAnswer('own-deny', false);
    const resumed = await airlock.resume(messages);
    expect(resumed.responses).toEqual([]);
    expect(resumed.pending).toEqual([]);
    await generateText({
      model: script.model,
      tools: wrapped,
      messages: resumed.messages,
      stopWhen: stepCountIs(3),
    });
    expect(ran).toEqual([]);
    await airlock.flush();
    const [row] = await (k as FrameworkKernel).tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'send_email', state: 'canceled' });
  });

  it('a denial of its own while the kernel is down: the next resume withdraws it', async () => {
    const { airlock, messages } = await parkAndAnswer('own-deny-outage', false);
    const kernel = (k as FrameworkKernel).kernel;
    await kernel.stop();
    await airlock.resume(messages);
    await expect(airlock.flush()).rejects.toMatchObject({ code: 'connection_failed' });
    await kernel.start();
    await airlock.resume(messages);
    await airlock.flush();
    const [row] = await (k as FrameworkKernel).tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'send_email', state: 'canceled' });
  });

  // The withdrawal read the kernel's call_mismatch refusal as "nothing open" and counted the
  // park as settled: it stayed in the inbox and flush() said nothing.
  it('a denial of its own whose saved call was edited: the park stays, and flush() says why', async () => {
    const { airlock, messages } = await parkAndAnswer('own-deny-edited', false);
    const edited = JSON.parse(
      JSON.stringify(messages).replace('ops@example.com', 'all@example.com'),
    ) as ModelMessage[];
    await airlock.resume(edited);
    await expect(airlock.flush()).rejects.toMatchObject({ code: 'call_mismatch' });
    const [row] = await (k as FrameworkKernel).tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'send_email', state: 'needs_approval' });
  });
});
