import { createClient } from '@airlock/sdk';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import {
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  Usage,
} from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appAgent, ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/** A scripted model whose first answer asks for two send_email calls at once. */
class TwoCallsModel extends ScriptedModel {
  #first = true;
  override async getResponse(request: ModelRequest): Promise<ModelResponse> {
    if (!this.#first) return super.getResponse(request);
    this.#first = false;
    this.requests.push(request);
    const call = (id: string) => ({
      type: 'function_call' as const,
      callId: id,
      name: 'send_email',
      arguments: JSON.stringify({ to: id }),
      status: 'completed' as const,
    });
    return { usage: new Usage(), output: [call('g1'), call('g2')] };
  }
}

describe('Agents SDK: two parked calls of one step', () => {
  let k: FrameworkKernel | undefined;
  beforeAll(() => setTracingDisabled(true));
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  /** The member's approval of the parked call with this call id. */
  async function approve(callId: string): Promise<void> {
    const { kernel } = k as FrameworkKernel;
    const member = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    const open = await member.workspace(kernel.workspace.id).decisions.list();
    const found = open.find((d) => d.isApproval() && JSON.stringify(d).includes(`"${callId}"`));
    if (!found?.isApproval()) throw new Error(`no open approval for ${callId}`);
    await found.approve();
  }

  // Unlike the AI SDK, the runner goes on with a step partly decided: the approved call runs
  // and the run pauses again on the one still waiting. This pins it.
  it('one approved and one waiting: the approved one runs once, the run pauses on the other', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-two' });
    const model = new TwoCallsModel([{ text: 'sent' }]);
    const { agent, ran } = appAgent(airlock, model);
    const first = await run(agent, 'do the thing');
    expect(first.interruptions).toHaveLength(2);
    await approve('g1');
    expect(await airlock.resume(first.state)).toMatchObject({ approved: 1, pending: [{}] });
    const second = await run(agent, first.state);
    expect(second.interruptions).toHaveLength(1);
    expect(ran).toEqual(['send_email']);

    await approve('g2');
    expect(await airlock.resume(second.state)).toMatchObject({ approved: 1, pending: [] });
    const third = await run(agent, second.state);
    expect(third.finalOutput).toBe('sent');
    expect(ran).toEqual(['send_email', 'send_email']);
    await airlock.flush();
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.map((row) => [row.tool_call_id, row.state]).sort()).toEqual([
      ['g1', 'succeeded'],
      ['g2', 'succeeded'],
    ]);
  });
});
