import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * The runner stops waiting for a call while the adapter still asks Airlock about it (the
 * tool's own `timeoutMs` passed): the model has read the timeout, so a grant that arrives
 * afterwards must run nothing, and the row must say the call did not run.
 */
describe('an Agents SDK call the runner gave up on while Airlock was asked', () => {
  let k: FrameworkKernel | undefined;
  beforeAll(() => setTracingDisabled(true));
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('a resumed call whose tool timed out during the check: nothing runs, the row says it did not run', async () => {
    k = await startFrameworkKernel();
    // The invoke's check (a pre_tool that is no look) is held until the tool's timeout fired.
    let holdChecks = false;
    let timedOut: () => void = () => {};
    const timeout = new Promise<void>((resolve) => {
      timedOut = resolve;
    });
    const heldFetch: typeof fetch = async (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      if (holdChecks && body.includes('"pre_tool"') && !body.includes('"look":true')) await timeout;
      return fetch(input, init);
    };
    const airlock = createOpenAIAgentsAirlock({
      ...k.connection,
      sessionId: 'agents-abandoned-timeout',
      fetch: heldFetch,
    });
    const ran: string[] = [];
    const sendEmail = tool({
      name: 'send_email',
      description: 'send an email',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      timeoutMs: 200,
      timeoutErrorFunction: () => {
        timedOut();
        return 'the tool timed out';
      },
      execute: async () => {
        ran.push('send_email');
        return 'sent';
      },
    });
    const model = new ScriptedModel([
      { call: { id: 'p1', name: 'send_email', input: { to: 'ops@example.com' } } },
      { text: 'it timed out' },
    ]);
    const agent = new Agent({
      name: 'a',
      instructions: 'help',
      model,
      tools: airlock.tools([sendEmail]),
    });
    const first = await run(agent, 'do the thing');
    const approval = await k.parked('send_email');
    await approval.approve();
    expect(await airlock.resume(first.state)).toMatchObject({ approved: 1 });

    holdChecks = true;
    const second = await run(agent, first.state);
    expect(model.lastInput()).toContain('the tool timed out');
    const row = await eventually(
      async () => {
        const [task] = await (k as FrameworkKernel).tasks(approval.run_id);
        return task && ['succeeded', 'failed', 'canceled'].includes(task.state) ? task : undefined;
      },
      { what: 'the row of p1 ended' },
    );
    await airlock.flush();
    expect(second.finalOutput).toBe('it timed out');
    expect(ran).toEqual([]);
    expect(row).toMatchObject({ state: 'failed' });
    expect(JSON.stringify(row)).toContain('did not run');
  });
});
