import { createClient } from '@airlock/sdk';
import { createAiSdkAirlock, isPendingApprovalsError } from '@airlock/sdk/ai';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, USER, usage } from './ai-sdk-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/** A model whose first step asks for two send_email calls at once, then answers `sent`. */
function twoCallsModel() {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      step += 1;
      if (step > 1) {
        return {
          content: [{ type: 'text', text: 'sent' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      const call = (id: string, to: string) => ({
        type: 'tool-call' as const,
        toolCallId: id,
        toolName: 'send_email',
        input: JSON.stringify({ to }),
      });
      return {
        content: [call('two-a', 'a@example.com'), call('two-b', 'b@example.com')],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

/**
 * Two calls of one step parked; a person approved one and not yet the other. The AI SDK goes
 * on only once every call of the step has an answer: it ran the approved call and then threw
 * its own AI_MissingToolResultsError, so what the call returned was lost, and the next resume
 * told the model the call was refused (it had already run).
 */
describe('an AI SDK step with one park decided and another still waiting', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('runs nothing and throws an error naming the call that waits; once both are decided each runs once', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'chat-partly-decided' });
    const { tools, ran } = appTools();
    const wrapped = airlock.tools(tools);
    const model = twoCallsModel();
    const first = await generateText({ model, tools: wrapped, messages: USER });
    const messages = [...USER, ...first.response.messages];
    const waiting = await airlock.resume(messages);
    expect(waiting.pending.map((call) => call.toolCallId).sort()).toEqual(['two-a', 'two-b']);

    const member = createClient({ url: k.kernel.url, token: k.kernel.workspace.tokens.member });
    const approvals = await member.workspace(k.kernel.workspace.id).decisions.list();
    const parkA = approvals.find(
      (decision) => decision.isApproval() && JSON.stringify(decision).includes('a@example.com'),
    );
    if (!parkA?.isApproval()) throw new Error('no park for two-a');
    await parkA.approve();

    const partly = await airlock.resume(messages);
    expect(partly.responses).toMatchObject([{ approved: true }]);
    expect(partly.pending).toMatchObject([{ toolCallId: 'two-b' }]);
    const refused = await generateText({
      model,
      tools: wrapped,
      messages: partly.messages,
      stopWhen: stepCountIs(3),
    }).then(
      () => null,
      (error: unknown) => error,
    );

    expect(isPendingApprovalsError(refused)).toBe(true);
    expect(refused).toMatchObject({ pending: [{ toolCallId: 'two-b', toolName: 'send_email' }] });
    expect(String((refused as Error).message)).toContain('two-b');
    expect(ran).toEqual([]);
    await airlock.flush();
    const rowsBetween = await k.tasks(airlock.session.runId as string);
    expect(rowsBetween.map((row) => [row.tool_call_id, row.state]).sort()).toEqual([
      ['two-a', 'runnable'],
      ['two-b', 'needs_approval'],
    ]);

    await (await k.parked('send_email')).approve();
    const decided = await airlock.resume(messages);
    expect(decided.pending).toEqual([]);
    expect(decided.responses).toMatchObject([{ approved: true }, { approved: true }]);
    const second = await generateText({
      model,
      tools: wrapped,
      messages: decided.messages,
      stopWhen: stepCountIs(3),
    });
    expect(second.text).toBe('sent');
    expect(ran).toEqual(['send_email', 'send_email']);
    await airlock.finish(second.text);
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.map((row) => [row.tool_call_id, row.state]).sort()).toEqual([
      ['two-a', 'succeeded'],
      ['two-b', 'succeeded'],
    ]);
  });
});
