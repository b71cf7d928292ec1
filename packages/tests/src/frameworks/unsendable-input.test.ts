import { AirlockRefusal, createAiSdkAirlock } from '@airlock/sdk/ai';
import { generateText, stepCountIs, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel, USER } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A tool whose schema turns the model's input into something JSON cannot
 * carry (a BigInt): Airlock cannot be asked, so the call is refused with the
 * stable code `invalid_input`, and the model reads Airlock's reason (the refusal's message). (It used
 * to read the bare `TypeError` of comparing that input with the checked call:
 * `Do not know how to serialize a BigInt`.)
 */
describe('a tool input that cannot be sent as JSON', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('AI SDK: the tool does not run; the model reads the invalid_input refusal', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'unsendable-ai' });
    const ran: bigint[] = [];
    const lookup = tool({
      description: 'lookup',
      inputSchema: z.object({ n: z.string().transform((text) => BigInt(text)) }),
      execute: async ({ n }) => {
        ran.push(n);
        return 'looked up';
      },
    });
    const script = scriptedModel([
      { call: { id: 'u1', name: 'lookup', input: { n: '5' } } },
      { text: 'done' },
    ]);
    const result = await generateText({
      model: script.model,
      tools: airlock.tools({ lookup }),
      messages: USER,
      stopWhen: stepCountIs(5),
    });
    expect(ran).toEqual([]);
    const failure = result.steps[0]?.content.find((part) => part.type === 'tool-error');
    const refusal = failure?.error as AirlockRefusal | undefined;
    expect(refusal).toBeInstanceOf(AirlockRefusal);
    expect(refusal?.verdict.code).toBe('invalid_input');
    // The SDK hands the model the error's message.
    expect(refusal?.message).toMatch(
      /^Airlock refused this call: Airlock could not decide this call: invalid_input: /,
    );
  });
});
