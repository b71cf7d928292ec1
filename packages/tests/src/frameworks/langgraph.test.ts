import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  HumanMessage,
} from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import {
  Command,
  END,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FrameworkKernel, READ_ONLY_PROFILE, startFrameworkKernel } from './support.js';

type Step =
  | { call: { id: string; name: string; input: Record<string, unknown> } }
  | { text: string };

/**
 * A LangGraph agent: the model node plays LangChain's fake tool-calling chat
 * model (one scripted message per step), the tools node is LangGraph's own
 * ToolNode over the wrapped tools. `requests` keeps what the model was sent.
 */
function appGraph(
  airlock: ReturnType<typeof createLangGraphAirlock>,
  steps: Step[],
  checkpointer: MemorySaver,
) {
  const ran: string[] = [];
  const requests: BaseMessage[][] = [];
  const make = (name: string) =>
    tool(
      async (input) => {
        ran.push(name);
        return JSON.stringify({ ok: true, tool: name, input });
      },
      { name, description: name, schema: z.object({}).passthrough() },
    );
  const tools = airlock.tools([
    make('lookup'),
    make('delete_file'),
    make('send_email'),
    make('bash'),
  ]);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => {
      requests.push(state.messages);
      const step = steps.shift() ?? { text: 'done' };
      const fields =
        'text' in step
          ? { content: step.text }
          : {
              content: '',
              tool_calls: [{ id: step.call.id, name: step.call.name, args: step.call.input }],
            };
      const model = new FakeStreamingChatModel({
        sleep: 0,
        responses: [new AIMessage(fields)],
        chunks: [new AIMessageChunk(fields)],
      }).bindTools(tools);
      return { messages: [await model.invoke(state.messages)] };
    })
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
  const lastRequest = () => JSON.stringify(requests.at(-1)?.map((m) => m.content));
  return { graph, ran, lastRequest };
}

/** The checkpointer's saved checkpoints as text, and a fresh checkpointer read back from it. */
function saveCheckpoints(saver: MemorySaver): string {
  return JSON.stringify({ storage: saver.storage, writes: saver.writes }, (_key, value) =>
    value instanceof Uint8Array ? { bytes: Buffer.from(value).toString('base64') } : value,
  );
}
function loadCheckpoints(text: string): MemorySaver {
  const parsed = JSON.parse(text, (_key, value) =>
    value && typeof value === 'object' && typeof value.bytes === 'string'
      ? new Uint8Array(Buffer.from(value.bytes, 'base64'))
      : value,
  );
  const saver = new MemorySaver();
  saver.storage = parsed.storage;
  saver.writes = parsed.writes;
  return saver;
}

/** The value of the first interrupt a paused invoke returned. */
function interruptOf(out: object): unknown {
  return (out as { __interrupt__?: { value: unknown }[] }).__interrupt__?.[0]?.value;
}

const input = { messages: [new HumanMessage('do the thing')] };
const thread = (id: string) => ({ configurable: { thread_id: id } });

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
    const rows = await k.tasks(airlock.session.runId as string);
    expect(rows.find((row) => row.tool_call_id === 'p1')).toMatchObject({ state: 'succeeded' });
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
