import { isValidationError, ValidationError } from '@airlock/sdk';
import { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import { shellTool, tool } from '@openai/agents';
import { describe, expect, it } from 'vitest';

/** Which tools the Agents SDK adapter can gate. */
describe('the OpenAI Agents SDK adapter and the tools it is given', () => {
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
});
