import { createClient } from '@airlock/sdk';
import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { Command, MemorySaver } from '@langchain/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import { appGraph, input, interruptsOf, thread } from './langgraph-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A person approves a parked LangGraph call with changes: the tool runs once, with the input the
 * person gave (parsed by the tool's own schema), and the row records it.
 */
describe('LangGraph: a park approved with changes', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('runs the tool once with the changed input', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-changes' });
    const app = appGraph(
      airlock,
      [
        { calls: [{ id: 'c1', name: 'send_email', input: { to: 'everyone@example.com' } }] },
        { text: 'ok' },
      ],
      new MemorySaver(),
    );
    let out = await app.graph.invoke(input, thread('changes'));
    expect(interruptsOf(out)).toHaveLength(1);
    expect(app.ran).toEqual([]);

    const { kernel } = k;
    const member = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    const [parked] = await member.workspace(kernel.workspace.id).decisions.list();
    if (!parked?.isApproval()) throw new Error('expected a parked call');
    await parked.approve({ tool_input: { to: 'ops@example.com' } });

    out = await app.graph.invoke(new Command({ resume: 'go' }), thread('changes'));
    expect(interruptsOf(out)).toEqual([]);
    expect(app.ran).toEqual(['send_email']);
    const request = app.lastRequest();
    expect(request).toContain('{\\"to\\":\\"ops@example.com\\"}');
    expect(request).not.toContain('everyone@example.com\\"}');
    await airlock.flush();
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.map((row) => [row.tool_call_id, row.state])).toEqual([['c1', 'succeeded']]);
  });
});
