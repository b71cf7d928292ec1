import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { RunState, run, setTracingDisabled } from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appAgent, ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, READ_ONLY_PROFILE, startFrameworkKernel } from './support.js';

describe('Airlock inside the OpenAI Agents SDK (@openai/agents 0.14, real runner, Model class)', () => {
  let k: FrameworkKernel | undefined;
  beforeAll(() => setTracingDisabled(true));
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('grants a call: it runs once, the model reads its result, the row holds what it returned', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-grant' });
    const model = new ScriptedModel([
      { call: { id: 'c1', name: 'lookup', input: { q: 'weather' } } },
      { text: 'it is sunny' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    const result = await run(agent, 'do the thing');
    expect(result.finalOutput).toBe('it is sunny');
    expect(ran).toEqual(['lookup']);
    expect(model.lastInput()).toContain('weather');
    // The report of what ran goes behind the call: flush() waits until it is committed.
    await airlock.flush();
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'succeeded', tool_call_id: 'c1' });
    expect(JSON.stringify(row?.result)).toContain('weather');
    // The adapter holds no verdict for a call once the call ran or was refused.
    expect(airlock.verdictsHeld).toBe(0);
  });

  it('refuses a call: it does not run, and the next model request carries the reason', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-deny' });
    const model = new ScriptedModel([
      { call: { id: 'd1', name: 'delete_file', input: { path: 'a.txt' } } },
      { text: 'could not' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    await run(agent, 'do the thing');
    expect(ran).toEqual([]);
    expect(model.lastInput()).toContain('Airlock refused this call: no deletes in this workspace');
    // The adapter holds no verdict for a call once the call ran or was refused.
    expect(airlock.verdictsHeld).toBe(0);
  });

  it('parks a call as a RunState interruption; a member approves through the SDK; it runs exactly once', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-park' });
    const model = new ScriptedModel([
      { call: { id: 'p1', name: 'send_email', input: { to: 'ops@example.com' } } },
      { text: 'sent' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    const first = await run(agent, 'do the thing');
    expect(first.interruptions).toHaveLength(1);
    expect(ran).toEqual([]);
    const waiting = await airlock.resume(first.state);
    expect(waiting).toMatchObject({ approved: 0, rejected: 0, pending: [{ taskKey: 't1' }] });

    await (await k.parked('send_email')).approve();
    expect(await airlock.resume(first.state)).toMatchObject({ approved: 1, pending: [] });
    const second = await run(agent, first.state);
    expect(second.finalOutput).toBe('sent');
    expect(ran).toEqual(['send_email']);
    expect(model.lastInput()).toContain('ops@example.com');
    // The report of what ran goes behind the call: flush() waits until it is committed.
    await airlock.flush();
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.find((row) => row.tool_call_id === 'p1')).toMatchObject({ state: 'succeeded' });
    // The adapter holds no verdict for a call once the call ran or was refused.
    expect(airlock.verdictsHeld).toBe(0);
  });

  it('a deny after a park: the call never runs and the model reads the reason', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-park-deny' });
    const model = new ScriptedModel([
      { call: { id: 'p2', name: 'send_email', input: { to: 'all@example.com' } } },
      { text: 'not sent' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    const first = await run(agent, 'do the thing');
    await (await k.parked('send_email')).deny({ reason: 'not to the whole company' });
    expect(await airlock.resume(first.state)).toMatchObject({ rejected: 1 });
    await run(agent, first.state);
    expect(ran).toEqual([]);
    expect(model.lastInput()).toContain('not to the whole company');
    // The runner never invokes a rejected call: the adapter must not keep its verdict for it.
    expect(airlock.verdictsHeld).toBe(0);
  });

  it('survives a restart: RunState.toString, a fresh agent and adapter, a restarted kernel', async () => {
    k = await startFrameworkKernel();
    const before = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-restart' });
    const app1 = appAgent(
      before,
      new ScriptedModel([{ call: { id: 'r1', name: 'send_email', input: { to: 'a@b.c' } } }]),
    );
    const first = await run(app1.agent, 'do the thing');
    const saved = first.state.toString();

    await k.kernel.restart();
    await (await k.parked('send_email')).approve();

    const after = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-restart' });
    const model = new ScriptedModel([{ text: 'sent after restart' }]);
    const app2 = appAgent(after, model);
    const state = await RunState.fromString(app2.agent, saved);
    expect(await after.resume(state)).toMatchObject({ approved: 1 });
    const second = await run(app2.agent, state);
    expect(second.finalOutput).toBe('sent after restart');
    expect([...app1.ran, ...app2.ran]).toEqual(['send_email']);
  });

  it('spec 004 requires_user parks a network command for a person', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-ru' });
    const model = new ScriptedModel([
      { call: { id: 'n1', name: 'bash', input: { command: 'curl https://example.com' } } },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    const first = await run(agent, 'do the thing');
    expect(first.interruptions).toHaveLength(1);
    expect(ran).toEqual([]);
    expect((await airlock.resume(first.state)).pending).toMatchObject([{ requiresUser: true }]);
  });

  it('spec 003 read_only grants a read and refuses a delete with the rule set reason', async () => {
    k = await startFrameworkKernel(READ_ONLY_PROFILE);
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-ro' });
    const model = new ScriptedModel([
      { call: { id: 'o1', name: 'lookup', input: { q: 'x' } } },
      { call: { id: 'o2', name: 'delete_file', input: { path: 'x' } } },
      { text: 'done' },
    ]);
    const { agent, ran } = appAgent(airlock, model);
    await run(agent, 'do the thing');
    expect(ran).toEqual(['lookup']);
    expect(model.lastInput()).toContain('the read_only rule set allows');
  });
});
