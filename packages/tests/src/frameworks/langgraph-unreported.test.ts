import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { Command, MemorySaver } from '@langchain/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import { appGraph, input, loadCheckpoints, saveCheckpoints, thread } from './langgraph-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A granted call beside a parked one ran, and its process stopped before its
 * report reached Airlock. On the resume, LangGraph's tool node runs the step
 * again: the model read `Airlock refused this call`, though the call may have
 * run, and a model told so would make it again.
 */
describe('LangGraph: a granted call whose report never arrived, run again on a resume', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('does not run twice, and the model reads that it may have run, not that it was refused', async () => {
    k = await startFrameworkKernel();
    // The first process stops before any report of what ran leaves it.
    const stopsBeforeReports: typeof fetch = async (url, init) => {
      if (typeof init?.body === 'string' && init.body.includes('post_tool')) {
        throw new Error('the process stopped');
      }
      return fetch(url, init);
    };
    const saver = new MemorySaver();
    const before = createLangGraphAirlock({
      ...k.connection,
      sessionId: 'lg-unreported',
      fetch: stopsBeforeReports,
    });
    const calls = [
      { id: 'u1', name: 'lookup', input: { q: 'w' } },
      { id: 'u2', name: 'send_email', input: { to: 'b' } },
    ];
    const app1 = appGraph(before, [{ calls }], saver);
    await app1.graph.invoke(input, thread('u'));
    await (await k.parked('send_email')).approve();

    const after = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-unreported' });
    const app2 = appGraph(after, [{ text: 'done' }], loadCheckpoints(saveCheckpoints(saver)));
    await app2.graph.invoke(new Command({ resume: 'decided' }), thread('u'));
    expect([...app1.ran, ...app2.ran].sort()).toEqual(['lookup', 'send_email']);
    const request = app2.lastRequest();
    expect(request).toContain('it may have run');
    expect(request).not.toContain('Airlock refused');
  });
});
