import { HOOKED_OUTPUT_MAX_BYTES, truncateUtf8 } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { claudeCode } from './claude-code.js';
import { gemini } from './gemini.js';
import { REPORTED_OUTPUT_MAX_UNITS } from './payload.js';

/** A long output of one, two, three and four byte characters, a pair straddling every cut. */
const LONG = 'a\u00e9\u20ac\u{1F600}'.repeat(400_000);

describe("a report of a call's long output", () => {
  it('sends one code unit more than the kernel keeps (so it knows it was cut), and the kernel keeps the same', () => {
    expect(REPORTED_OUTPUT_MAX_UNITS).toBe(HOOKED_OUTPUT_MAX_BYTES);
    for (const skip of [0, 1, 2, 3, 4]) {
      const output = LONG.slice(skip);
      const event = claudeCode.parse({
        session_id: 's1',
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'cat big.log' },
        tool_use_id: 'tu-1',
        tool_response: output,
      });
      expect(event?.output?.length).toBe(REPORTED_OUTPUT_MAX_UNITS + 1);
      const sent = event?.output ?? '';
      expect(truncateUtf8(sent, HOOKED_OUTPUT_MAX_BYTES)).toBe(
        truncateUtf8(output, HOOKED_OUTPUT_MAX_BYTES),
      );
    }
  });

  it("reads a Gemini CLI shell's exit code from the whole output, past the cut", () => {
    const event = gemini.parse({
      session_id: 'g1',
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'make' },
      tool_response: { llmContent: `Output: ${'x'.repeat(2_000_000)}\nExit Code: 2\n` },
    });
    expect(event).toMatchObject({ outcome: 'failed' });
    expect(event?.output?.length).toBe(REPORTED_OUTPUT_MAX_UNITS + 1);
  });

  it('sends a short output whole', () => {
    const event = claudeCode.parse({
      session_id: 's1',
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: { stdout: 'a\n', stderr: '' },
    });
    expect(event?.output).toBe('{"stdout":"a\\n","stderr":""}');
  });
});
