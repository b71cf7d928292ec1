import { isValidationError, ValidationError } from '@airlock/sdk';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import {
  Agent,
  run,
  setTraceProcessors,
  setTracingDisabled,
  shellTool,
  tool,
} from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/** Which tools the Agents SDK adapter can gate, and what it records of a tool that fails. */
describe('the OpenAI Agents SDK adapter and the tools it is given', () => {
  let k: FrameworkKernel | undefined;
  beforeAll(() => setTracingDisabled(true));
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('refuses to wrap a tool that is not a function tool (a local shell), naming it: it cannot run unchecked', () => {
    const airlock = createOpenAIAgentsAirlock({
      url: 'http://127.0.0.1:9',
      token: 'unused',
      sessionId: 'agents-shell',
    });
    const ran: unknown[] = [];
    const shell = shellTool({
      shell: {
        run: async (action) => {
          ran.push(action.commands);
          return { output: [] };
        },
      },
    });
    const lookup = tool({
      name: 'lookup',
      description: 'lookup',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      execute: async () => 'found',
    });
    let thrown: unknown;
    try {
      airlock.tools([lookup, shell] as never[]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect(isValidationError(thrown)).toBe(true);
    expect((thrown as ValidationError).problems).toEqual([
      expect.objectContaining({ pointer: '/1', message: expect.stringContaining('"shell"') }),
    ]);
    expect(ran).toEqual([]);
  });

  it('a function tool whose execute throws (caught by tool() and handed to the model) is recorded failed', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-throws' });
    const lookup = tool({
      name: 'lookup',
      description: 'lookup',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      execute: async () => {
        throw new Error('disk on fire');
      },
    });
    const model = new ScriptedModel([
      { call: { id: 'e1', name: 'lookup', input: {} } },
      { text: 'it failed' },
    ]);
    const agent = new Agent({
      name: 'a',
      instructions: 'help',
      model,
      tools: airlock.tools([lookup]),
    });
    await run(agent, 'do the thing');
    await airlock.flush();
    // The model reads the Agents SDK's own error text, as without Airlock.
    expect(model.lastInput()).toContain('disk on fire');
    const [row] = await k.tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'failed', tool_call_id: 'e1' });
    expect(JSON.stringify(row)).toContain('disk on fire');
  });

  // The adapter knew a throw only by the default errorFunction's text: a tool with an
  // errorFunction of its own read as succeeded in Airlock, its row holding the error text.
  it('a function tool whose execute throws and whose errorFunction is its own is recorded failed', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-own-error' });
    const lookup = tool({
      name: 'lookup',
      description: 'lookup',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      execute: async () => {
        throw new Error('disk on fire');
      },
      errorFunction: (_context, error) => `lookup is down today (${String(error)})`,
    });
    const model = new ScriptedModel([
      { call: { id: 'e2', name: 'lookup', input: {} } },
      { text: 'it failed' },
    ]);
    const agent = new Agent({
      name: 'a',
      instructions: 'help',
      model,
      tools: airlock.tools([lookup]),
    });
    await run(agent, 'do the thing');
    await airlock.flush();
    // The model reads the application's own error text, as without Airlock.
    expect(model.lastInput()).toContain('lookup is down today');
    const [row] = await (k as FrameworkKernel).tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'failed', tool_call_id: 'e2' });
    // The row holds what the tool threw, not the text the errorFunction made of it.
    expect(JSON.stringify(row)).toContain('disk on fire');
    expect(JSON.stringify(row)).not.toContain('lookup is down today');
  });

  it("with tracing on: the row reads failed, and the run's function span still holds the error", async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'agents-own-traced' });
    const ended: { type: unknown; error: unknown }[] = [];
    const recorder = {
      onTraceStart: async () => {},
      onTraceEnd: async () => {},
      onSpanStart: async () => {},
      onSpanEnd: async (span: { spanData: { type: unknown }; error: unknown }) => {
        ended.push({ type: span.spanData.type, error: span.error });
      },
      shutdown: async () => {},
      forceFlush: async () => {},
    };
    setTraceProcessors([recorder]);
    setTracingDisabled(false);
    try {
      const lookup = tool({
        name: 'lookup',
        description: 'lookup',
        parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
        strict: false,
        execute: async () => {
          throw new Error('disk on fire');
        },
        errorFunction: () => 'lookup is down today',
      });
      const model = new ScriptedModel([
        { call: { id: 'e3', name: 'lookup', input: {} } },
        { text: 'it failed' },
      ]);
      const agent = new Agent({
        name: 'a',
        instructions: 'help',
        model,
        tools: airlock.tools([lookup]),
      });
      await run(agent, 'do the thing');
    } finally {
      setTracingDisabled(true);
      setTraceProcessors([]);
    }
    await airlock.flush();
    const [row] = await (k as FrameworkKernel).tasks(airlock.session.runId as string);
    expect(row).toMatchObject({ tool_name: 'lookup', state: 'failed', tool_call_id: 'e3' });
    expect(JSON.stringify(row)).toContain('disk on fire');
    expect(ended).toContainEqual({
      type: 'function',
      error: expect.objectContaining({ message: 'Error running tool (non-fatal)' }),
    });
  });
});
