import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import {
  Agent,
  defineToolInputGuardrail,
  run,
  setTracingDisabled,
  ToolGuardrailFunctionOutputFactory,
  tool,
} from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A call Airlock granted that one of the tool's own input guardrails stops:
 * the Agents SDK runs those after the approval (`needsApproval`, where the
 * adapter took Airlock's grant) and before `invoke`, so the tool never runs.
 * Its row records it as not run, and the adapter holds nothing for it. (The
 * row stayed granted, claimed for the agent, until the kernel could only say
 * the call may have run, and the adapter held the grant for a day.)
 */
describe("a granted call an Agents SDK tool's own input guardrail stops", () => {
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

  it.each(Object.keys(stops))('that %s: the row says it did not run', async (how) => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: `guarded-${how}` });
    const ran: string[] = [];
    const lookup = tool({
      name: 'lookup',
      description: 'lookup',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      inputGuardrails: [
        defineToolInputGuardrail({ name: 'app-policy', run: stops[how as keyof typeof stops] }),
      ],
      execute: async () => {
        ran.push('lookup');
        return 'found';
      },
    });
    const model = new ScriptedModel([
      { call: { id: 'g1', name: 'lookup', input: { q: 1 } } },
      { text: 'done' },
    ]);
    const agent = new Agent({
      name: 'a',
      instructions: 'help',
      model,
      tools: airlock.tools([lookup]),
    });
    await run(agent, 'go').catch(() => undefined);
    await airlock.flush();

    expect(ran).toEqual([]);
    expect(airlock.verdictsHeld).toBe(0);
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'failed' });
    expect(JSON.stringify(row)).toContain(
      "the call did not run: the tool's input guardrail app-policy",
    );
  });
});
