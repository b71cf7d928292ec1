import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { MemorySaver } from '@langchain/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { appGraph, input, thread } from './langgraph-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * The application aborts the graph (`signal` in the invoke's config) while the wrapper asks
 * Airlock about a call: a grant that comes after must not run a tool the user stopped.
 */
describe('a LangGraph invoke aborted while Airlock is asked', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('the grant runs nothing, and its row fails with the reason of the abort', async () => {
    k = await startFrameworkKernel();
    const controller = new AbortController();
    const airlock = createLangGraphAirlock({
      ...k.connection,
      sessionId: 'lg-aborted',
      fetch: async (url, init) => {
        const body = typeof init?.body === 'string' ? init.body : '';
        if (body.includes('"pre_tool"')) controller.abort(new Error('the user pressed stop'));
        return fetch(url, init);
      },
    });
    const app = appGraph(
      airlock,
      [{ call: { id: 'la1', name: 'lookup', input: { q: 'x' } } }, { text: 'done' }],
      new MemorySaver(),
    );
    await app.graph
      .invoke(input, { ...thread('aborted'), signal: controller.signal })
      .catch(() => undefined);
    // The wrapper's check goes on after the aborted invoke returned: wait for its row to end.
    const fk = k;
    const row = await eventually(
      async () => {
        await airlock.flush();
        if (airlock.session.runId === null) return null;
        const [found] = await fk.tasks(airlock.session.runId);
        return found && found.state !== 'claimed' ? found : null;
      },
      { what: 'the row of the aborted call to end' },
    );
    expect(app.ran).toEqual([]);
    expect(row).toMatchObject({ tool_call_id: 'la1', state: 'failed' });
    // LangChain's tool refuses to start under an aborted signal: the row records why.
    expect(row.error).toMatchObject({ detail: 'the user pressed stop' });
  });
});
