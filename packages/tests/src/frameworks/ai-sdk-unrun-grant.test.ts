import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, USER, usage } from './ai-sdk-app.js';
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
});
