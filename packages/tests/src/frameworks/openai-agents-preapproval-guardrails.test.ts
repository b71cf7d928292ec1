import { createClient } from '@airlock/sdk';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import {
  Agent,
  defineToolInputGuardrail,
  Runner,
  setTracingDisabled,
  ToolGuardrailFunctionOutputFactory,
  tool,
} from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A call Airlock holds open (parked, or approved with its grant untaken)
 * that one of the tool's own input guardrails stops: the runner drops it and
 * nothing will run it, so its row is withdrawn (canceled) instead of staying
 * in the inbox for a person whose approval nothing would act on. (The park
 * stayed `needs_approval`, and an approved call `runnable`, until the park's
 * clock ran out.)
 */
describe('an open call an Agents SDK input guardrail stops', () => {
  let k: FrameworkKernel | undefined;
  beforeAll(() => setTracingDisabled(true));
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  const stops = {
    rejects: async () => ToolGuardrailFunctionOutputFactory.rejectContent('blocked by the app'),
    throws: async (): Promise<never> => {
      throw new Error('the guardrail broke');
    },
  };

  function guardedApp(
    how: string,
    sessionId: string,
    steps: ConstructorParameters<typeof ScriptedModel>[0],
  ) {
    const airlock = createOpenAIAgentsAirlock({ ...(k as FrameworkKernel).connection, sessionId });
    const ran: string[] = [];
    const sendEmail = tool({
      name: 'send_email',
      description: 'send an email',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      inputGuardrails: [
        defineToolInputGuardrail({ name: 'app-policy', run: stops[how as keyof typeof stops] }),
      ],
      execute: async () => {
        ran.push('send_email');
        return 'sent';
      },
    });
    const model = new ScriptedModel(steps);
    const agent = new Agent({
      name: 'a',
      instructions: 'help',
      model,
      tools: airlock.tools([sendEmail]),
    });
    return { airlock, agent, ran };
  }

  async function openDecisions(): Promise<unknown[]> {
    const { kernel } = k as FrameworkKernel;
    const member = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    return member.workspace(kernel.workspace.id).decisions.list();
  }

  it.each(Object.keys(stops))(
    'before the approval (preApprovalInputGuardrails), one that %s: the park is withdrawn',
    async (how) => {
      k = await startFrameworkKernel();
      const { airlock, agent, ran } = guardedApp(how, `pre-${how}`, [
        { call: { id: 'p1', name: 'send_email', input: { to: 'all' } } },
        { text: 'done' },
      ]);
      const runner = new Runner({ toolExecution: { preApprovalInputGuardrails: true } });
      const result = await runner.run(agent, 'go').catch(() => null);
      await airlock.flush();

      expect(ran).toEqual([]);
      expect(result?.interruptions ?? []).toEqual([]);
      const [row] = await k.tasks(airlock.session.runId as string);
      expect(row).toMatchObject({ tool_name: 'send_email', state: 'canceled' });
      expect(await openDecisions()).toEqual([]);
    },
  );

  it.each(Object.keys(stops))(
    'after a person approved it, one that %s: the approved row is withdrawn',
    async (how) => {
      k = await startFrameworkKernel();
      const { airlock, agent, ran } = guardedApp(how, `post-${how}`, [
        { call: { id: 'p2', name: 'send_email', input: { to: 'all' } } },
        { text: 'done' },
      ]);
      const runner = new Runner();
      const first = await runner.run(agent, 'go');
      expect(first.interruptions).toHaveLength(1);
      await (await k.parked('send_email')).approve();
      expect(await airlock.resume(first.state)).toMatchObject({ approved: 1 });
      await runner.run(agent, first.state).catch(() => null);
      await airlock.flush();

      expect(ran).toEqual([]);
      const [row] = await k.tasks(airlock.session.runId as string);
      expect(row).toMatchObject({ tool_name: 'send_email', state: 'canceled' });
    },
  );
});
