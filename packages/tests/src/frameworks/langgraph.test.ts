import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { Command, MemorySaver } from '@langchain/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appGraph,
  input,
  interruptOf,
  loadCheckpoints,
  saveCheckpoints,
  thread,
} from './langgraph-app.js';
import { type FrameworkKernel, READ_ONLY_PROFILE, startFrameworkKernel } from './support.js';

describe('Airlock inside LangGraph.js (@langchain/langgraph 1.7, ToolNode, fake tool-calling model)', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('grants a call: it runs once, the model reads its result, the row holds what it returned', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-grant' });
    const app = appGraph(
      airlock,
      [{ call: { id: 'c1', name: 'lookup', input: { q: 'weather' } } }, { text: 'sunny' }],
      new MemorySaver(),
    );
    const out = await app.graph.invoke(input, thread('g'));
    expect(out.messages.at(-1)?.content).toBe('sunny');
    expect(app.ran).toEqual(['lookup']);
    expect(app.lastRequest()).toContain('weather');
    // The report of what ran goes behind the call: flush() waits until it is committed.
    await airlock.flush();
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'succeeded', tool_call_id: 'c1' });
    expect(JSON.stringify(row?.result)).toContain('weather');
  });

  it('refuses a call: it does not run, and the next model request carries the reason', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-deny' });
    const app = appGraph(
      airlock,
      [{ call: { id: 'd1', name: 'delete_file', input: { path: 'a' } } }, { text: 'no' }],
      new MemorySaver(),
    );
    await app.graph.invoke(input, thread('d'));
    expect(app.ran).toEqual([]);
    expect(app.lastRequest()).toContain('Airlock refused this call: no deletes in this workspace');
  });

  it('parks a call as interrupt(); a member approves through the SDK; Command resume runs it exactly once', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-park' });
    const app = appGraph(
      airlock,
      [
        { call: { id: 'p1', name: 'send_email', input: { to: 'ops@example.com' } } },
        { text: 'sent' },
      ],
      new MemorySaver(),
    );
    const first = await app.graph.invoke(input, thread('p'));
    expect(interruptOf(first)).toMatchObject({
      airlock: { tool: 'send_email', callId: 'p1', taskKey: 't1' },
    });
    expect(app.ran).toEqual([]);
    await (await k.parked('send_email')).approve();
    const second = await app.graph.invoke(new Command({ resume: 'decided' }), thread('p'));
    expect(second.messages.at(-1)?.content).toBe('sent');
    expect(app.ran).toEqual(['send_email']);
    // The report of what ran goes behind the call: flush() waits until it is committed.
    await airlock.flush();
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.find((row) => row.tool_call_id === 'p1')).toMatchObject({ state: 'succeeded' });
  });

  it('a granted call beside a parked one in a step runs once; on the resume the model reads what it returned', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-beside' });
    const app = appGraph(
      airlock,
      [
        {
          calls: [
            { id: 'b1', name: 'lookup', input: { q: 'weather' } },
            { id: 'b2', name: 'send_email', input: { to: 'ops@example.com' } },
          ],
        },
        { text: 'done' },
      ],
      new MemorySaver(),
    );
    const first = await app.graph.invoke(input, thread('b'));
    expect(interruptOf(first)).toMatchObject({ airlock: { tool: 'send_email', callId: 'b2' } });
    await (await k.parked('send_email')).approve();
    // The tool node runs both calls of the step again: the lookup that ran is not run twice.
    await app.graph.invoke(new Command({ resume: 'decided' }), thread('b'));
    expect(app.ran.sort()).toEqual(['lookup', 'send_email']);
    const request = app.lastRequest();
    expect(request).toContain('weather');
    expect(request).not.toContain('Airlock refused');
    await airlock.flush();
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.map((row) => [row.tool_call_id, row.state]).sort()).toEqual([
      ['b1', 'succeeded'],
      ['b2', 'succeeded'],
    ]);
  });

  it('a deny after a park: the call never runs and the model reads the reason', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-park-deny' });
    const app = appGraph(
      airlock,
      [{ call: { id: 'p2', name: 'send_email', input: { to: 'all@example.com' } } }, { text: 'x' }],
      new MemorySaver(),
    );
    await app.graph.invoke(input, thread('pd'));
    await (await k.parked('send_email')).deny({ reason: 'not to the whole company' });
    await app.graph.invoke(new Command({ resume: 'decided' }), thread('pd'));
    expect(app.ran).toEqual([]);
    expect(app.lastRequest()).toContain('not to the whole company');
  });

  it('survives a restart: saved checkpoints, a fresh graph and adapter, a restarted kernel', async () => {
    k = await startFrameworkKernel();
    const before = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-restart' });
    const saver = new MemorySaver();
    const app1 = appGraph(
      before,
      [{ call: { id: 'r1', name: 'send_email', input: { to: 'a@b.c' } } }],
      saver,
    );
    await app1.graph.invoke(input, thread('r'));
    const saved = saveCheckpoints(saver);

    await k.kernel.restart();
    await (await k.parked('send_email')).approve();

    const after = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-restart' });
    const app2 = appGraph(after, [{ text: 'sent after restart' }], loadCheckpoints(saved));
    const out = await app2.graph.invoke(new Command({ resume: 'decided' }), thread('r'));
    expect(out.messages.at(-1)?.content).toBe('sent after restart');
    expect([...app1.ran, ...app2.ran]).toEqual(['send_email']);
  });

  it('spec 004 requires_user parks a network command for a person', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-ru' });
    const app = appGraph(
      airlock,
      [{ call: { id: 'n1', name: 'bash', input: { command: 'curl https://example.com' } } }],
      new MemorySaver(),
    );
    const first = await app.graph.invoke(input, thread('n'));
    expect(interruptOf(first)).toMatchObject({ airlock: { requiresUser: true } });
    expect(app.ran).toEqual([]);
  });

  it('spec 003 read_only grants a read and refuses a delete with the rule set reason', async () => {
    k = await startFrameworkKernel(READ_ONLY_PROFILE);
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-ro' });
    const app = appGraph(
      airlock,
      [
        { call: { id: 'o1', name: 'lookup', input: { q: 'x' } } },
        { call: { id: 'o2', name: 'delete_file', input: { path: 'x' } } },
        { text: 'done' },
      ],
      new MemorySaver(),
    );
    await app.graph.invoke(input, thread('o'));
    expect(app.ran).toEqual(['lookup']);
    expect(app.lastRequest()).toContain('the read_only rule set allows');
  });
});
