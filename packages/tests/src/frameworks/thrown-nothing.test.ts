import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { tool as langchainTool } from '@langchain/core/tools';
import { generateText, jsonSchema, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel, USER } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A wrapped tool that throws something that is no Error (`null`,
 * `undefined`): the adapter passes it on as thrown and records the call as
 * failed, instead of crashing on it and leaving the row claimed.
 */
describe('a granted tool that throws null or undefined', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  /** Waits for the adapter's reports, then checks that its one call is recorded as failed. */
  async function expectFailed(
    airlock: { flush(): Promise<void>; session: { runId: string | null } },
    thrown: 'null' | 'undefined',
  ) {
    await airlock.flush();
    const [row] = await k!.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({
      state: 'failed',
      error: { code: 'tool_failed', detail: `the tool threw ${thrown}` },
    });
  }

  it('AI SDK: the call is recorded as failed', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'throw-ai' });
    const lookup = tool({
      description: 'lookup',
      inputSchema: jsonSchema<Record<string, string>>({ type: 'object' }),
      execute: async (): Promise<string> => {
        throw undefined;
      },
    });
    const result = await generateText({
      model: scriptedModel([{ call: { id: 'x1', name: 'lookup', input: { q: 1 } } }]).model,
      tools: airlock.tools({ lookup }),
      messages: USER,
    });
    expect(result.content.some((part) => part.type === 'tool-error')).toBe(true);
    await expectFailed(airlock, 'undefined');
  });

  it('OpenAI Agents: invoke rethrows the null, and the call is recorded as failed', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'throw-agents' });
    const [lookup] = airlock.tools([
      {
        type: 'function',
        name: 'lookup',
        invoke: async () => {
          throw null;
        },
      },
    ]);
    const invoke = lookup?.invoke as (context: unknown, input: string, details: unknown) => unknown;
    await expect(invoke({}, '{"q":1}', { toolCall: { callId: 'x2' } })).rejects.toBeNull();
    await expectFailed(airlock, 'null');
  });

  it('LangGraph: the call is recorded as failed', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'throw-langgraph' });
    const thrower = langchainTool(
      async () => {
        throw undefined;
      },
      { name: 'lookup', description: 'lookup', schema: z.object({}).passthrough() },
    );
    const [lookup] = airlock.tools([thrower]);
    await expect(
      lookup?.invoke({ id: 'x3', name: 'lookup', args: { q: 1 }, type: 'tool_call' }),
    ).rejects.toBeUndefined();
    await expectFailed(airlock, 'undefined');
  });
});
