import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER, usage } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * The AI SDK asks `needsApproval` (Airlock grants) of every call of a step,
 * but executes them only when the step finished with `stop` or `tool-calls`:
 * a model cut off by its token limit leaves a granted call that never runs.
 */
describe('an AI SDK call Airlock granted that the SDK never executes', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('is recorded as not run when the turn finishes, not as a call that may have run', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-cut-short' });
    const { tools, ran } = appTools();
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [
          { type: 'tool-call', toolCallId: 'cut1', toolName: 'lookup', input: '{"q":"x"}' },
        ],
        finishReason: { unified: 'length', raw: 'length' },
        usage,
        warnings: [],
      }),
    });
    const result = await generateText({ model, tools: airlock.tools(tools), messages: USER });
    expect(result.finishReason).toBe('length');
    expect(ran).toEqual([]);
    await airlock.finish('cut short');
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'failed' });
    expect(row?.error?.code).not.toBe('outcome_unknown');
    expect(JSON.stringify(row)).toContain('the call did not run');
    expect(airlock.verdictsHeld).toBe(0);
  });

  // An application that never calls finish() but goes on with the chat: the grant stayed
  // claimed, and once its claim lapsed the row read as a call that may have run.
  it.each(['a call of the next step', 'resume'])(
    'without finish(), is recorded as not run when the chat goes on (%s)',
    async (how) => {
      k = await startFrameworkKernel();
      const airlock = createAiSdkAirlock({ ...k.connection, sessionId: `chat-no-finish-${how}` });
      const { tools, ran } = appTools();
      const wrapped = airlock.tools(tools);
      const cutShort = new MockLanguageModelV3({
        doGenerate: async () => ({
          content: [
            { type: 'tool-call', toolCallId: 'cut2', toolName: 'lookup', input: '{"q":"x"}' },
          ],
          finishReason: { unified: 'length', raw: 'length' },
          usage,
          warnings: [],
        }),
      });
      const first = await generateText({ model: cutShort, tools: wrapped, messages: USER });
      // The SDK refuses history with a call lacking its result: the application writes one.
      const messages: ModelMessage[] = [
        ...USER,
        ...first.response.messages,
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'cut2',
              toolName: 'lookup',
              output: { type: 'text', value: 'cut short' },
            },
          ],
        },
        { role: 'user', content: 'go on' },
      ];
      if (how === 'resume') await airlock.resume(messages);
      else {
        const { model } = scriptedModel([
          { call: { id: 'next1', name: 'lookup', input: { q: 'y' } } },
          { text: 'done' },
        ]);
        await generateText({ model, tools: wrapped, messages, stopWhen: stepCountIs(3) });
      }
      await airlock.flush();
      const rows = await k.tasks(airlock.session.runId as string);
      const cut = rows.find((row) => row.tool_call_id === 'cut2');
      expect(cut).toMatchObject({ tool_name: 'lookup', state: 'failed' });
      expect(JSON.stringify(cut)).toContain('the call did not run');
      expect(ran).toEqual(how === 'resume' ? [] : ['lookup']);
    },
  );
});
