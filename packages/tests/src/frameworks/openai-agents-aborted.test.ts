import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { run, setTracingDisabled } from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appAgent, ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * The application aborts the run (`signal` in run's options) while the adapter asks Airlock
 * about a call: a grant that comes after must not run a tool the user stopped.
 */
describe('an Agents SDK run aborted while Airlock is asked', () => {
  let k: FrameworkKernel | undefined;
  beforeAll(() => setTracingDisabled(true));
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('the grant runs nothing, and finish() records that it did not run', async () => {
    k = await startFrameworkKernel();
    const controller = new AbortController();
    const airlock = createOpenAIAgentsAirlock({
      ...k.connection,
      sessionId: 'agents-aborted',
      fetch: async (url, init) => {
        const body = typeof init?.body === 'string' ? init.body : '';
        if (body.includes('"pre_tool"')) controller.abort(new Error('the user pressed stop'));
        return fetch(url, init);
      },
    });
    const model = new ScriptedModel([
      { call: { id: 'aa1', name: 'lookup', input: { q: 'x' } } },
      { text: 'done' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    await run(agent, 'do the thing', { signal: controller.signal }).catch(() => undefined);
    expect(ran).toEqual([]);
    // The runner never invokes a call whose run was aborted: finish() records it as not run.
    await airlock.finish('stopped');
    const [row] = await (k as FrameworkKernel).tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_call_id: 'aa1', state: 'failed' });
    expect(JSON.stringify(row)).toContain('did not run');
  });
});
