import { createClient } from '@airlock/sdk';
import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver } from '@langchain/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appGraph, input, interruptsOf, scriptedGraph, thread } from './langgraph-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/** The call ids of the Airlock parks a paused invoke surfaced. */
function surfaced(out: object): string[] {
  return interruptsOf(out).map(
    (item) => (item.value as { airlock: { callId: string } }).airlock.callId,
  );
}

/**
 * Several calls of one step parked: LangGraph's tool node runs them side by side and surfaces
 * one interrupt at a time (whichever paused first), while every park waits in Airlock's inbox.
 */
describe('LangGraph: several parked calls of one step', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  /** The member's approval of the parked call with this call id. */
  async function approvalOf(callId: string) {
    const { kernel } = k as FrameworkKernel;
    const member = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    const open = await member.workspace(kernel.workspace.id).decisions.list();
    const found = open.find(
      (decision) => decision.isApproval() && JSON.stringify(decision).includes(`"${callId}"`),
    );
    if (!found?.isApproval()) throw new Error(`no open approval for ${callId}`);
    return found;
  }

  it('each is decided on its own: nothing runs before its approval, a denied one never, none twice', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-three-parks' });
    const emails = ['u1', 'u2', 'u3'].map((id) => ({ id, name: 'send_email', input: { to: id } }));
    const app = appGraph(airlock, [{ calls: emails }, { text: 'ok' }], new MemorySaver());
    let out = await app.graph.invoke(input, thread('three'));
    // Resumes before any decision pause again, each on one of the three; nothing runs.
    for (const round of [1, 2, 3]) {
      expect(surfaced(out)).toHaveLength(1);
      out = await app.graph.invoke(new Command({ resume: `early ${round}` }), thread('three'));
    }
    expect(app.ran).toEqual([]);

    await (await approvalOf('u1')).approve();
    await (await approvalOf('u3')).deny({ reason: 'not u3' });
    out = await app.graph.invoke(new Command({ resume: 'go' }), thread('three'));
    expect(surfaced(out)).toEqual(['u2']);
    await airlock.flush();
    expect(app.ran).toEqual(['send_email']);

    await (await approvalOf('u2')).approve();
    out = await app.graph.invoke(new Command({ resume: 'go' }), thread('three'));
    expect(surfaced(out)).toEqual([]);
    expect(app.ran).toEqual(['send_email', 'send_email']);
    const request = app.lastRequest();
    expect(request).toContain('{\\"to\\":\\"u1\\"}');
    expect(request).toContain('{\\"to\\":\\"u2\\"}');
    expect(request).toContain('Airlock refused this call: not u3');
    await airlock.flush();
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.map((row) => [row.tool_call_id, row.state]).sort()).toEqual([
      ['u1', 'succeeded'],
      ['u2', 'succeeded'],
      ['u3', 'failed'],
    ]);
  });

  // The graph came back paused on the sibling's park while the approved call still ran, and
  // flush() resolved with its row still claimed: an application that saved the thread and
  // stopped then left a row that later read as may-have-run.
  it('a granted call still running as a sibling park pauses the graph: flush() waits for its report', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-running-sibling' });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sent: unknown[] = [];
    const slowEmail = tool(
      async (args: unknown) => {
        await gate;
        sent.push(args);
        return 'sent';
      },
      { name: 'send_email', description: 'send', schema: z.object({}).passthrough() },
    );
    const calls = ['s1', 's2'].map((id) => ({ id, name: 'send_email', args: { to: id } }));
    const steps = [{ content: '', tool_calls: calls }, { content: 'ok' }];
    const graph = scriptedGraph(
      airlock.tools([slowEmail]),
      () => steps.shift() ?? { content: 'done' },
      new MemorySaver(),
    );
    await graph.invoke(input, thread('running'));
    await (await approvalOf('s1')).approve();
    const out = await graph.invoke(new Command({ resume: 'go' }), thread('running'));
    expect(surfaced(out)).toEqual(['s2']);
    expect(sent).toEqual([]);

    let flushed = false;
    const flushing = airlock.flush().then(() => {
      flushed = true;
    });
    // The call is still running: flush() must not say its report is committed.
    await Promise.resolve();
    expect(flushed).toBe(false);
    release();
    await flushing;
    expect(sent).toEqual([{ to: 's1' }]);
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.map((row) => [row.tool_call_id, row.state]).sort()).toEqual([
      ['s1', 'succeeded'],
      ['s2', 'needs_approval'],
    ]);
  });
});
