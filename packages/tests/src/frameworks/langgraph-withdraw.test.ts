import { createClient } from '@airlock/sdk';
import { type AirlockInterrupt, createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { Command, MemorySaver } from '@langchain/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appGraph,
  input,
  interruptOf,
  interruptsOf,
  loadCheckpoints,
  saveCheckpoints,
  thread,
} from './langgraph-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A park the LangGraph application will not go on with (it rejects the call
 * itself, or drops the thread): `withdraw` cancels its row, so the inbox does
 * not ask a person about a call nothing will run. (Before, nothing could: the
 * park stayed open until its clock ran out, and an approval of it read as a
 * call still to run.)
 */
describe('LangGraph: withdrawing a park the application drops', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  async function openDecisions(): Promise<unknown[]> {
    const { kernel } = k as FrameworkKernel;
    const member = createClient({ url: kernel.url, token: kernel.workspace.tokens.member });
    return member.workspace(kernel.workspace.id).decisions.list();
  }

  const emailStep = (id: string) => ({
    call: { id, name: 'send_email', input: { to: 'all@example.com' } },
  });

  it('a park the application rejects: its row is canceled, and the resumed model reads that it was withdrawn', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-wd-reject' });
    const app = appGraph(airlock, [emailStep('w1'), { text: 'ok' }], new MemorySaver());
    const first = await app.graph.invoke(input, thread('w1'));
    expect(interruptOf(first)).toMatchObject({
      airlock: { tool: 'send_email', callId: 'w1', input: { to: 'all@example.com' } },
    });

    await airlock.withdraw(interruptsOf(first));
    expect(await openDecisions()).toEqual([]);
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({
      tool_call_id: 'w1',
      state: 'canceled',
      error: {
        code: 'canceled',
        detail: 'the application withdrew the call from its paused LangGraph thread',
      },
    });

    const second = await app.graph.invoke(new Command({ resume: 'rejected' }), thread('w1'));
    expect(second.messages.at(-1)?.content).toBe('ok');
    expect(app.ran).toEqual([]);
    expect(app.lastRequest()).toContain('Airlock refused this call: the call was canceled');
  });

  it('a call a person approved that the application drops: the grant is withdrawn and never runs', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-wd-approved' });
    const app = appGraph(airlock, [emailStep('w2'), { text: 'ok' }], new MemorySaver());
    const first = await app.graph.invoke(input, thread('w2'));
    await (await k.parked('send_email')).approve();

    await airlock.withdraw(interruptOf(first) as AirlockInterrupt, 'the user closed the thread');
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({
      tool_call_id: 'w2',
      state: 'canceled',
      error: { code: 'canceled', detail: 'the user closed the thread' },
    });
    await app.graph.invoke(new Command({ resume: 'go' }), thread('w2'));
    expect(app.ran).toEqual([]);
  });

  it('withdraws from a fresh process: the interrupts read back from the saved thread', async () => {
    k = await startFrameworkKernel();
    const saver = new MemorySaver();
    const before = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-wd-later' });
    await appGraph(before, [emailStep('w3')], saver).graph.invoke(input, thread('w3'));
    const saved = saveCheckpoints(saver);

    const after = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-wd-later' });
    const app = appGraph(after, [], loadCheckpoints(saved));
    const state = await app.graph.getState(thread('w3'));
    await after.withdraw(state.tasks.flatMap((task) => task.interrupts));
    expect(await openDecisions()).toEqual([]);
  });

  it("withdraws with no reason rather than not at all when the kernel refuses the application's", async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-wd-long' });
    const app = appGraph(airlock, [emailStep('w5')], new MemorySaver());
    const first = await app.graph.invoke(input, thread('w5'));
    // Past the kernel's 4096 characters: refused invalid_input, so sent again without it.
    await airlock.withdraw(interruptsOf(first), 'x'.repeat(5000));
    expect(await openDecisions()).toEqual([]);
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_call_id: 'w5', state: 'canceled', error: null });
  });

  it('two parks in one step surface one at a time: withdraw and resume until the graph stops pausing', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-wd-two' });
    const emails = ['w5', 'w6'].map((id) => ({ id, name: 'send_email', input: { to: id } }));
    const app = appGraph(airlock, [{ calls: emails }, { text: 'ok' }], new MemorySaver());
    let out = await app.graph.invoke(input, thread('w5'));
    let rounds = 0;
    while (interruptsOf(out).length > 0 && rounds < 5) {
      rounds += 1;
      await airlock.withdraw(interruptsOf(out));
      out = await app.graph.invoke(new Command({ resume: 'rejected' }), thread('w5'));
    }
    expect(rounds).toBe(2);
    expect(app.ran).toEqual([]);
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.map((row) => row.state)).toEqual(['canceled', 'canceled']);
  });

  it('leaves an interrupt that is not an Airlock park alone, and refuses another session', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-wd-own' });
    await expect(airlock.withdraw([{ value: { question: 'ok?' } }, { value: 7 }])).resolves.toBe(
      undefined,
    );
    const app = appGraph(airlock, [emailStep('w4')], new MemorySaver());
    const first = await app.graph.invoke(input, thread('w4'));
    const other = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-wd-elsewhere' });
    await expect(other.withdraw(interruptsOf(first))).rejects.toMatchObject({
      code: 'task_not_found',
    });
    expect(await openDecisions()).toHaveLength(1);
  });
});
