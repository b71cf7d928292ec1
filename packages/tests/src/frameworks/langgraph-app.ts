/*
 * The LangGraph.js application of the framework tests: a graph with a scripted fake model, a ToolNode, and checkpoints saved as text.
 */
import type { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  HumanMessage,
} from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';

/** One tool call of the model's. */
export interface StepCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** The model's next message: one tool call, several in one step, or a text. */
export type Step = { call: StepCall } | { calls: StepCall[] } | { text: string };

/** The model's next message: a text, or a tool call. */
export interface ModelFields {
  content: string;
  tool_calls?: { id: string; name: string; args: Record<string, unknown> }[];
}

/**
 * A LangGraph agent graph whose model node plays LangChain's fake tool-calling chat model,
 * answering with `next(messages)`, and whose tools node is LangGraph's own ToolNode over `tools`.
 */
export function scriptedGraph(
  tools: StructuredToolInterface[],
  next: (messages: BaseMessage[]) => ModelFields,
  checkpointer?: MemorySaver,
) {
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => {
      const fields = next(state.messages);
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
    .compile(checkpointer ? { checkpointer } : {});
}

/**
 * A LangGraph agent: the model node plays LangChain's fake tool-calling chat
 * model (one scripted message per step), the tools node is LangGraph's own
 * ToolNode over the wrapped tools. `requests` keeps what the model was sent.
 */
export function appGraph(
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
  const graph = scriptedGraph(
    tools,
    (messages) => {
      requests.push(messages);
      const step = steps.shift() ?? { text: 'done' };
      if ('text' in step) return { content: step.text };
      const calls = 'calls' in step ? step.calls : [step.call];
      return {
        content: '',
        tool_calls: calls.map((call) => ({ id: call.id, name: call.name, args: call.input })),
      };
    },
    checkpointer,
  );
  const lastRequest = () => JSON.stringify(requests.at(-1)?.map((m) => m.content));
  return { graph, ran, lastRequest };
}

/** The checkpointer's saved checkpoints as text, and a fresh checkpointer read back from it. */
export function saveCheckpoints(saver: MemorySaver): string {
  return JSON.stringify({ storage: saver.storage, writes: saver.writes }, (_key, value) =>
    value instanceof Uint8Array ? { bytes: Buffer.from(value).toString('base64') } : value,
  );
}
export function loadCheckpoints(text: string): MemorySaver {
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

/** The interrupts a paused invoke returned (LangGraph's `Interrupt`s, untyped on the output). */
export function interruptsOf(out: object): { value?: unknown }[] {
  return (out as { __interrupt__?: { value?: unknown }[] }).__interrupt__ ?? [];
}

/** The value of the first interrupt a paused invoke returned. */
export function interruptOf(out: object): unknown {
  return interruptsOf(out)[0]?.value;
}

export const input = { messages: [new HumanMessage('do the thing')] };
export const thread = (id: string) => ({ configurable: { thread_id: id } });
