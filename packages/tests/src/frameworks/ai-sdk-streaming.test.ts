import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedModel, USER } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

const schema = jsonSchema<Record<string, unknown>>({ type: 'object' });

/**
 * Streaming tools (an `async function*` execute: the AI SDK streams what it
 * yields, and its last value is the tool's output) keep streaming through the
 * adapter, and what they finally returned or threw is what the row records.
 */
describe('AI SDK streaming tools through Airlock', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('a granted streaming tool runs to its end; the model and the row get its last value', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'stream-grant' });
    const events: string[] = [];
    const lookup = tool({
      inputSchema: schema,
      execute: async function* () {
        events.push('started');
        yield { status: 'working' };
        await new Promise((resolve) => setTimeout(resolve, 20));
        events.push('finished');
        yield { status: 'done', answer: 42 };
      },
    });
    const { model, prompts } = scriptedModel([
      { call: { id: 'g1', name: 'lookup', input: {} } },
      { text: 'it is 42' },
    ]);
    const result = await generateText({
      model,
      tools: airlock.tools({ lookup }),
      messages: USER,
      stopWhen: stepCountIs(3),
    });
    await airlock.flush();
    expect(events).toEqual(['started', 'finished']);
    expect(result.steps[0]?.toolResults.map((part) => part.output)).toEqual([
      { status: 'done', answer: 42 },
    ]);
    expect(JSON.stringify(prompts[1])).toContain('"answer":42');
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'succeeded', tool_call_id: 'g1' });
    expect(JSON.stringify(row?.result)).toContain('42');
  });

  it('a streaming tool that throws midway is recorded failed with what it threw', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'stream-throw' });
    const lookup = tool({
      inputSchema: schema,
      execute: async function* () {
        yield { status: 'working' };
        throw new Error('boom mid-stream');
      },
    });
    const result = await generateText({
      model: scriptedModel([{ call: { id: 'g2', name: 'lookup', input: {} } }, { text: 'x' }])
        .model,
      tools: airlock.tools({ lookup }),
      messages: USER,
      stopWhen: stepCountIs(3),
    });
    await airlock.flush();
    expect(result.steps[0]?.content.some((part) => part.type === 'tool-error')).toBe(true);
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'failed', tool_call_id: 'g2' });
    expect(JSON.stringify(row)).toContain('boom mid-stream');
  });
});
