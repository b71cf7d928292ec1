import { createLangGraphAirlock } from '@airlock/sdk/langgraph';
import { AIMessage, type ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FrameworkKernel, startFrameworkKernel } from './support.js';

/**
 * A wrapped LangGraph tool keeps what the application declared on it: `returnDirect` (an agent
 * loop ends on its answer) and `responseFormat: 'content_and_artifact'` (the model reads the
 * content, the application keeps the artifact). Before, the wrapper dropped both.
 */
describe('LangGraph: the options of a wrapped tool', () => {
  let k: FrameworkKernel | undefined;
  afterEach(async () => {
    await k?.close();
    k = undefined;
  });

  it('keeps returnDirect and content_and_artifact: a granted call hands its artifact on, a refused one answers text', async () => {
    k = await startFrameworkKernel();
    const airlock = createLangGraphAirlock({ ...k.connection, sessionId: 'lg-tool-options' });
    const ran: string[] = [];
    const withArtifact = (name: string) =>
      tool(
        async ({ q }) => {
          ran.push(name);
          return [`the content of ${q}`, { rows: [1, 2, 3] }];
        },
        {
          name,
          description: name,
          schema: z.object({ q: z.string() }),
          responseFormat: 'content_and_artifact',
        },
      );
    const direct = tool(async () => 'the final answer', {
      name: 'bash',
      description: 'bash',
      schema: z.object({ command: z.string() }),
      returnDirect: true,
    });
    const tools = airlock.tools([withArtifact('lookup'), withArtifact('delete_file'), direct]);
    expect(tools.map((wrapped) => [wrapped.name, wrapped.returnDirect])).toEqual([
      ['lookup', false],
      ['delete_file', false],
      ['bash', true],
    ]);
    const calls = [
      { id: 'a1', name: 'lookup', args: { q: 'x' } },
      { id: 'a2', name: 'delete_file', args: { q: 'y' } },
      { id: 'a3', name: 'bash', args: { command: 'ls' } },
    ];
    const out = (await new ToolNode(tools).invoke({
      messages: [new AIMessage({ content: '', tool_calls: calls })],
    })) as { messages: ToolMessage[] };
    const [granted, refused, answered] = out.messages;
    expect(granted).toMatchObject({ content: 'the content of x', artifact: { rows: [1, 2, 3] } });
    expect(refused?.content).toContain('Airlock refused this call: no deletes in this workspace');
    expect(answered?.content).toBe('the final answer');
    expect(ran).toEqual(['lookup']);
    await airlock.flush();
    const rows = await k.tasks(airlock.session.runId as string);
    // The row holds what the model read, not the artifact the application keeps.
    const lookupRow = rows.find((row) => row.tool_call_id === 'a1');
    expect(lookupRow).toMatchObject({ state: 'succeeded' });
    expect(JSON.stringify(lookupRow?.result)).toContain('the content of x');
    expect(JSON.stringify(lookupRow?.result)).not.toContain('rows');
  });
});
