import { readFileSync } from 'node:fs';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import {
  Command,
  END,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLangGraphAirlock } from './langgraph.js';

/** What the stand-in kernel answers a `pre_tool` check: a verdict, or no answer at all. */
type Answer = 'down' | 'wait' | 'allow';

/**
 * A `fetch` playing the kernel's `hooks.event`: each check answers as
 * `state.answer` says (`down`: the connection fails), a report is acknowledged.
 */
function standInKernel(state: { answer: Answer; checks: number }): typeof fetch {
  return (async (_url: string | URL | Request, init?: RequestInit) => {
    const event = JSON.parse(String(init?.body)) as { event: string };
    if (event.event === 'pre_tool') {
      state.checks += 1;
      if (state.answer === 'down') throw new TypeError('fetch failed');
    }
    const verdict = event.event === 'pre_tool' ? state.answer : 'ack';
    const body = {
      verdict,
      reason: verdict === 'wait' ? 'send_email asks a person' : null,
      run_id: 'run_1',
      conversation_id: 'conv_1',
      task_key: 't1',
      task_state: verdict === 'allow' ? 'claimed' : verdict === 'wait' ? 'waiting' : null,
      requires_user: false,
      reminders: [],
    };
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
}

/** A graph whose one node is LangGraph's ToolNode, over a wrapped `send_email`. */
function toolGraph(state: { answer: Answer; checks: number }) {
  const airlock = createLangGraphAirlock({
    url: 'http://127.0.0.1:9',
    token: 'alk_agent_x',
    sessionId: 's1',
    fetch: standInKernel(state),
  });
  const ran: unknown[] = [];
  const sendEmail = tool(
    async (input) => {
      ran.push(input);
      return 'sent';
    },
    { name: 'send_email', description: 'send', schema: z.object({ to: z.string() }) },
  );
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('tools', new ToolNode(airlock.tools([sendEmail])))
    .addEdge(START, 'tools')
    .addEdge('tools', END)
    .compile({ checkpointer: new MemorySaver() });
  return { graph, ran };
}

const CALL = {
  messages: [
    new HumanMessage('tell ops'),
    new AIMessage({
      content: '',
      tool_calls: [{ id: 'call_1', name: 'send_email', args: { to: 'ops' } }],
    }),
  ],
};
const thread = { configurable: { thread_id: 'th1' } };
const interruptOf = (out: object) =>
  (out as { __interrupt__?: { value: unknown }[] }).__interrupt__?.[0]?.value;
const lastText = (out: { messages: BaseMessage[] }) => String(out.messages.at(-1)?.content);

describe('LangGraph adapter: a kernel out of reach, told apart with public LangGraph API only', () => {
  it('a call the model just made is refused, and the graph does not pause', async () => {
    const state = { answer: 'down' as Answer, checks: 0 };
    const { graph, ran } = toolGraph(state);
    const out = await graph.invoke(CALL, thread);
    expect(interruptOf(out)).toBeUndefined();
    expect(lastText(out)).toMatch(/^Airlock refused this call: Airlock could not decide this call/);
    expect(ran).toEqual([]);
  });

  it('a Command resume pauses again (unreached), and runs the call once when Airlock grants it', async () => {
    const state = { answer: 'wait' as Answer, checks: 0 };
    const { graph, ran } = toolGraph(state);
    const parked = await graph.invoke(CALL, thread);
    expect(interruptOf(parked)).toMatchObject({ airlock: { callId: 'call_1', taskKey: 't1' } });

    state.answer = 'down';
    const down = await graph.invoke(new Command({ resume: 'decided' }), thread);
    expect(interruptOf(down)).toMatchObject({ airlock: { unreached: 'connection_failed' } });
    expect(ran).toEqual([]);

    state.answer = 'allow';
    const done = await graph.invoke(new Command({ resume: 'decided' }), thread);
    expect(interruptOf(done)).toBeUndefined();
    expect(lastText(done)).toBe('sent');
    expect(ran).toEqual([{ to: 'ops' }]);
  });

  it('reads no private LangGraph config key (__pregel_*): a rename in LangGraph cannot break it', () => {
    const source = readFileSync(new URL('./langgraph.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/__pregel/);
    expect(source).not.toMatch(/configurable\??\.\s*__/);
  });
});
