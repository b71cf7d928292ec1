import { createClient } from '@airlock/sdk';
import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { type Model, type ModelResponse, run, Usage } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { appTools, USER, usage } from './ai-sdk-app.js';
import { appAgent } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * Two calls parked in one step, decided at different times: the application
 * resumes its saved state once the first is approved (the second still
 * pending) and again once the second is. The first call's grant, taken by
 * the first resume, answers the second resume too: both calls run, once each.
 * (Asking the kernel again was refused as already granted, and the second
 * resume answered the person's approval with a refusal.)
 */
describe('resuming again after a first resume left a call pending', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  /** Approves the parked call with that call id as a member. */
  async function approve(callId: string): Promise<void> {
    const kernel = k as FrameworkKernel;
    const workspace = createClient({
      url: kernel.kernel.url,
      token: kernel.kernel.workspace.tokens.member,
    }).workspace(kernel.kernel.workspace.id);
    const approval = await eventually(
      async () =>
        (await workspace.decisions.list()).find(
          (decision) => decision.isApproval() && decision.task.tool_call_id === callId,
        ),
      { what: `the parked call ${callId}` },
    );
    if (!approval?.isApproval()) throw new Error(`no approval for ${callId}`);
    await approval.approve();
  }

  it('AI SDK: both approved calls run', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'resume-again-ai' });
    const { tools, ran } = appTools();
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        step += 1;
        return step === 1
          ? {
              content: [
                {
                  type: 'tool-call',
                  toolCallId: 'e1',
                  toolName: 'send_email',
                  input: '{"to":"a"}',
                },
                {
                  type: 'tool-call',
                  toolCallId: 'e2',
                  toolName: 'send_email',
                  input: '{"to":"b"}',
                },
              ],
              finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'sent' }],
              finishReason: { unified: 'stop', raw: 'stop' },
              usage,
              warnings: [],
            };
      },
    });
    const wrapped = airlock.tools(tools);
    const first = await generateText({ model, tools: wrapped, messages: USER });
    const saved = [...USER, ...first.response.messages];

    await approve('e1');
    expect(await airlock.resume(saved)).toMatchObject({ responses: [{ approved: true }] });
    await approve('e2');
    const resumed = await airlock.resume(saved);
    expect(resumed.responses.map((response) => response.approved)).toEqual([true, true]);
    expect(resumed.pending).toEqual([]);

    await generateText({
      model,
      tools: wrapped,
      messages: resumed.messages,
      stopWhen: stepCountIs(5),
    });
    expect(ran).toEqual(['send_email', 'send_email']);
  });

  it('OpenAI Agents: both approved calls run', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'resume-again-ag' });
    const call = (callId: string, to: string) => ({
      type: 'function_call' as const,
      callId,
      name: 'send_email',
      arguments: JSON.stringify({ to }),
      status: 'completed' as const,
    });
    let step = 0;
    const model: Model = {
      async getResponse(): Promise<ModelResponse> {
        step += 1;
        const output: ModelResponse['output'] =
          step === 1
            ? [call('f1', 'a'), call('f2', 'b')]
            : [
                {
                  type: 'message',
                  role: 'assistant',
                  status: 'completed',
                  content: [{ type: 'output_text', text: 'sent' }],
                },
              ];
        return { usage: new Usage(), output };
      },
      // biome-ignore lint/correctness/useYield: the test never streams
      async *getStreamedResponse(): AsyncIterable<never> {
        throw new Error('not used: the test does not stream');
      },
    };
    const { agent, ran } = appAgent(airlock, model);
    const first = await run(agent, 'do the thing');

    await approve('f1');
    expect(await airlock.resume(first.state)).toMatchObject({ approved: 1, rejected: 0 });
    await approve('f2');
    expect(await airlock.resume(first.state)).toMatchObject({ rejected: 0, pending: [] });

    await run(agent, first.state);
    expect(ran).toEqual(['send_email', 'send_email']);
  });
});
