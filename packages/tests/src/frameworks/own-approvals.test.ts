import { createAiSdkAirlock } from '@airlock/sdk/ai';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { Agent, tool as agentsTool, run } from '@openai/agents';
import { generateText, jsonSchema, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { appTools, scriptedModel, USER } from './ai-sdk-app.js';
import { ScriptedModel } from './openai-agents-app.js';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/*
 * An application gives the framework a tool of its own beside the ones
 * Airlock wraps, with its own approval (`needsApproval: true`): a person of
 * the application must say yes before it runs. `resume` used to answer that
 * approval from Airlock too, so a call Airlock's rules allow (`bash`) was
 * approved in the framework's state and ran with nobody asked. `resume` now
 * answers only the calls of the tools the adapter wrapped, and leaves the
 * application's own approvals to it.
 */
describe("resume leaves the application's own approvals alone", () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('AI SDK: a tool of its own awaiting its approval is neither answered nor run', async () => {
    k = await startFrameworkKernel();
    const airlock = createAiSdkAirlock({ ...k.connection, sessionId: 'own-ai' });
    const app = appTools();
    const ownRan: string[] = [];
    const tools = {
      ...airlock.tools({ send_email: app.tools.send_email }),
      bash: tool({
        description: 'bash',
        inputSchema: jsonSchema<Record<string, string>>({ type: 'object' }),
        needsApproval: true,
        execute: async () => {
          ownRan.push('bash');
          return 'ran';
        },
      }),
    };
    const first = await generateText({
      model: scriptedModel([{ call: { id: 'own1', name: 'bash', input: { cmd: 'ls' } } }]).model,
      tools,
      messages: USER,
    });
    const saved = [...USER, ...first.response.messages];

    // Left open: the application's own person answers it (the SDK runs nothing until one does).
    const resumed = await airlock.resume(saved);
    expect(resumed).toEqual({ messages: saved, responses: [], pending: [] });
    expect(ownRan).toEqual([]);
  });

  it('OpenAI Agents: a tool of its own awaiting its approval is neither approved nor run', async () => {
    k = await startFrameworkKernel();
    const airlock = createOpenAIAgentsAirlock({ ...k.connection, sessionId: 'own-agents' });
    const ownRan: string[] = [];
    const own = agentsTool({
      name: 'bash',
      description: 'bash',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      needsApproval: true,
      execute: async () => {
        ownRan.push('bash');
        return 'ran';
      },
    });
    const lookup = agentsTool({
      name: 'lookup',
      description: 'lookup',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      execute: async () => 'found',
    });
    const model = new ScriptedModel([
      { call: { id: 'own2', name: 'bash', input: { cmd: 'ls' } } },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'app', model, tools: [...airlock.tools([lookup]), own] });
    const first = await run(agent, 'do the thing');
    expect(first.interruptions).toHaveLength(1);

    expect(await airlock.resume(first.state)).toEqual({ approved: 0, rejected: 0, pending: [] });
    const again = await run(agent, first.state);
    expect(again.interruptions).toHaveLength(1);
    expect(ownRan).toEqual([]);
  });
});
