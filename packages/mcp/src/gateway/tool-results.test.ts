import type { TaskView } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { toolResultOf } from './tool-results.js';

const row = (patch: Partial<TaskView>) =>
  ({ state: 'succeeded', result: null, error: null, ...patch }) as TaskView;

describe('the MCP answer for a settled row', () => {
  it("passes the server's result through when the call ran", () => {
    const result = { content: [{ type: 'text', text: 'ok' }], structuredContent: { n: 1 } };
    expect(toolResultOf(row({ result }))).toEqual(result);
    expect(toolResultOf(row({ result: { other: true } }))).toEqual({
      content: [{ type: 'text', text: '{"other":true}' }],
    });
  });

  it('answers isError with what the model would read otherwise', () => {
    const failed = (code: string, detail: string) =>
      toolResultOf(row({ state: 'failed', error: { code, detail } }));
    expect(failed('approval_denied', 'no')).toEqual({
      content: [{ type: 'text', text: 'Airlock refused this call: no' }],
      isError: true,
    });
    expect(failed('tool_error', 'ENOENT: missing')).toMatchObject({
      content: [{ text: 'ENOENT: missing' }],
      isError: true,
    });
    expect(failed('lease_lost', 'x')).toMatchObject({ content: [{ text: 'lease_lost: x' }] });
    expect(failed('result_too_large', 'the body limit is 1048576 bytes')).toEqual({
      content: [
        {
          type: 'text',
          text: 'The tool ran, but Airlock could not record its result (result_too_large): the body limit is 1048576 bytes',
        },
      ],
      isError: true,
    });
    expect(toolResultOf(row({ state: 'timed_out' }))).toMatchObject({
      content: [{ text: 'Nobody approved this tool call before it expired.' }],
      isError: true,
    });
    expect(toolResultOf(row({ state: 'canceled' })).isError).toBe(true);
  });
});
