import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { run, setTracingDisabled } from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appAgent, ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A call a person approved whose `invoke` finds the kernel out of reach: the call does not run
 * and the model reads why, so the runner is done with it. The turn's `finish()` withdraws the
 * approval once the kernel answers again, so it does not wait for good on a grant nothing takes.
 */
describe('an Agents SDK call approved in Airlock whose invoke cannot reach the kernel', () => {
  let k: FrameworkKernel | undefined;
  beforeAll(() => setTracingDisabled(true));
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('does not run; the model reads that Airlock could not decide; finish() withdraws the approval', async () => {
    k = await startFrameworkKernel();
    // Checks that take a grant (a pre_tool that is no look) find no kernel while `down`.
    let down = false;
    const outage: typeof fetch = async (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      if (down && body.includes('"pre_tool"') && !body.includes('"look":true')) {
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const airlock = createOpenAIAgentsAirlock({
      ...k.connection,
      sessionId: 'agents-approved-unreached',
      fetch: outage,
    });
    const model = new ScriptedModel([
      { call: { id: 'u1', name: 'send_email', input: { to: 'ops@example.com' } } },
      { text: 'could not send' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    const first = await run(agent, 'do the thing');
    const approval = await k.parked('send_email');
    await approval.approve();
    expect(await airlock.resume(first.state)).toMatchObject({ approved: 1 });

    down = true;
    await run(agent, first.state);
    expect(ran).toEqual([]);
    expect(model.lastInput()).toContain('Airlock could not decide this call');

    down = false;
    await airlock.finish('could not send');
    const [row] = await k.tasks(approval.run_id);
    expect(row).toMatchObject({ tool_call_id: 'u1', state: 'canceled' });
  });
});
