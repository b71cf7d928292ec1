import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOOKED_RAN_CALLS_MAX } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { RAN_CALLS_MAX, readTranscriptCalls, TRANSCRIPT_TAIL_BYTES } from './transcript.js';

function transcript(lines: unknown[], raw = ''): string {
  const path = join(mkdtempSync(join(tmpdir(), 'airlock-transcript-')), 'session.jsonl');
  writeFileSync(path, `${raw}${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return path;
}

// The entry shapes of Claude Code 2.1.332's transcript, as it wrote them on this machine.
const prompt = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'user',
  isSidechain: false,
  message: { role: 'user', content: text },
  ...extra,
});
const toolUse = (id: string, name: string) => ({
  type: 'assistant',
  message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input: {} }] },
});
const toolResult = (id: string, content: unknown, isError: boolean) => ({
  type: 'user',
  message: {
    role: 'user',
    content: [{ tool_use_id: id, type: 'tool_result', content, is_error: isError }],
  },
});

describe('the calls of a turn, read from the agent transcript', () => {
  it('Claude Code: the current turn only, with outcomes, subagent calls and calls still running', () => {
    const path = transcript(
      [
        { type: 'queue-operation', operation: 'enqueue' },
        prompt('first turn'),
        toolUse('toolu_old', 'Bash'),
        toolResult('toolu_old', 'old', false),
        prompt('second turn'),
        { type: 'attachment', attachment: { type: 'date' } },
        toolUse('toolu_1', 'Bash'),
        toolResult('toolu_1', 'one-out', false),
        // A subagent's own prompt is not a new turn of the session.
        prompt('subagent task', { isSidechain: true }),
        toolUse('toolu_2', 'Write'),
        toolResult('toolu_2', [{ type: 'text', text: 'Exit code 1' }], true),
        // A meta entry (a local command's output) is not a prompt either.
        prompt('<local-command-stdout>', { isMeta: true }),
        toolUse('toolu_3', 'WebFetch'),
        {
          type: 'assistant',
          message: { role: 'assistant', content: [{ type: 'text', text: 'x' }] },
        },
      ],
      // A line the agent was still writing.
      '{"type":"user","mess\n',
    );
    expect(readTranscriptCalls('claude-code', path)).toEqual([
      { tool_use_id: 'toolu_1', tool_name: 'Bash', outcome: 'succeeded', output: 'one-out' },
      { tool_use_id: 'toolu_2', tool_name: 'Write', outcome: 'failed', output: 'Exit code 1' },
      { tool_use_id: 'toolu_3', tool_name: 'WebFetch' },
    ]);
  });

  it('Codex: the turn since its task started, an exec outcome from its exit code', () => {
    const item = (payload: Record<string, unknown>) => ({ type: 'response_item', payload });
    const path = transcript([
      { type: 'session_meta', payload: { id: 's' } },
      { type: 'event_msg', payload: { type: 'task_started' } },
      item({ type: 'function_call', name: 'exec_command', call_id: 'call_old' }),
      { type: 'event_msg', payload: { type: 'task_started' } },
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }),
      item({ type: 'function_call', name: 'exec_command', call_id: 'call_1' }),
      item({
        type: 'function_call_output',
        call_id: 'call_1',
        output: 'Chunk ID: 0a\nProcess exited with code 0\nOutput:\none-out\n',
      }),
      item({ type: 'function_call', name: 'exec_command', call_id: 'call_2' }),
      item({
        type: 'function_call_output',
        call_id: 'call_2',
        output: 'Process exited with code 1\nOutput:\n',
      }),
      item({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'call_3' }),
      item({ type: 'custom_tool_call_output', call_id: 'call_3', output: 'Success.' }),
      // Codex 0.169's output of a patch it applied, and of one it refused before applying it.
      item({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'call_4' }),
      item({
        type: 'custom_tool_call_output',
        call_id: 'call_4',
        output:
          'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA hello.txt\n',
      }),
      item({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'call_5' }),
      item({
        type: 'custom_tool_call_output',
        call_id: 'call_5',
        output: 'apply_patch verification failed: Failed to read file to update missing.txt',
      }),
      // What a command printed is not its exit code.
      item({ type: 'function_call', name: 'exec_command', call_id: 'call_6' }),
      item({
        type: 'function_call_output',
        call_id: 'call_6',
        output: 'Process running with session ID 7\nOutput:\nProcess exited with code 0\n',
      }),
    ]);
    const calls = readTranscriptCalls('codex', path);
    expect(calls?.map((c) => [c.tool_use_id, c.tool_name, c.outcome])).toEqual([
      ['call_1', 'exec_command', 'succeeded'],
      ['call_2', 'exec_command', 'failed'],
      ['call_3', 'apply_patch', undefined],
      ['call_4', 'apply_patch', 'succeeded'],
      ['call_5', 'apply_patch', undefined],
      ['call_6', 'exec_command', undefined],
    ]);
    expect(calls?.[2]?.output).toBe('Success.');
  });

  it('Gemini CLI: the turn since its prompt, each call with its input and outcome', () => {
    // The entry shapes of Gemini CLI 0.61's chat recording, as it wrote them on this machine.
    const user = (content: unknown) => ({ id: 'u', type: 'user', content });
    const shellCall = (id: string, command: string, status: string, output?: string) => ({
      id,
      name: 'run_shell_command',
      args: { command },
      status,
      ...(output === undefined
        ? {}
        : {
            result: [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }],
            resultDisplay: output,
          }),
    });
    const gemini = (toolCalls?: unknown[]) => ({
      id: 'g',
      type: 'gemini',
      content: '',
      ...(toolCalls ? { toolCalls } : {}),
    });
    const path = transcript([
      { sessionId: 's', kind: 'main' },
      { $set: { messages: [user([{ text: '<session_context>' }])] } },
      user([{ text: 'first turn' }]),
      gemini([shellCall('c_old', 'ls', 'success', 'Output: a')]),
      user([{ text: 'Remove the build folder.' }]),
      gemini(),
      // The same entry is written again once its calls completed.
      gemini([shellCall('c1', 'echo one', 'success', 'Output: one\nProcess Group PGID: 1')]),
      user([{ functionResponse: { id: 'c1', name: 'run_shell_command', response: {} } }]),
      gemini([shellCall('c2', 'false', 'success', 'Output: (empty)\nExit Code: 1')]),
      gemini([
        { id: 'c3', name: 'write_file', args: { file_path: 'a' }, status: 'error', result: [] },
      ]),
      gemini([shellCall('c4', 'rm -r x', 'cancelled')]),
      gemini([
        { id: 'c5', name: 'write_file', args: { content: 'z'.repeat(5000) }, status: 'executing' },
      ]),
    ]);
    const calls = readTranscriptCalls('gemini', path);
    expect(calls).toEqual([
      {
        tool_use_id: 'c1',
        tool_name: 'run_shell_command',
        tool_input: { command: 'echo one' },
        outcome: 'succeeded',
        output: 'Output: one\nProcess Group PGID: 1',
      },
      {
        tool_use_id: 'c2',
        tool_name: 'run_shell_command',
        tool_input: { command: 'false' },
        outcome: 'failed',
        output: 'Output: (empty)\nExit Code: 1',
      },
      {
        tool_use_id: 'c3',
        tool_name: 'write_file',
        tool_input: { file_path: 'a' },
        outcome: 'failed',
        output: '',
      },
      // Still running, and too large an input to send: matched by its tool alone.
      { tool_use_id: 'c5', tool_name: 'write_file' },
    ]);
  });

  it('reads only the end of a long transcript, and cuts long outputs', () => {
    const filler = { type: 'attachment', attachment: { text: 'x'.repeat(1_000_000) } };
    const path = transcript([
      prompt('an earlier turn'),
      toolUse('toolu_early', 'Bash'),
      ...Array.from({ length: 10 }, () => filler),
      prompt('turn'),
      toolUse('toolu_late', 'Bash'),
      toolResult('toolu_late', 'y'.repeat(10_000), false),
    ]);
    expect(TRANSCRIPT_TAIL_BYTES).toBeLessThan(10_000_000);
    const calls = readTranscriptCalls('claude-code', path) ?? [];
    expect(calls.map((call) => call.tool_use_id)).toEqual(['toolu_late']);
    expect(calls[0]?.output).toHaveLength(2048);
  });

  it.each([
    ['claude-code', prompt('turn'), toolUse('toolu_early', 'Write')],
    [
      'codex',
      { type: 'event_msg', payload: { type: 'task_started' } },
      {
        type: 'response_item',
        payload: { type: 'function_call', call_id: 'toolu_early', name: 'exec_command' },
      },
    ],
  ] as const)(
    '%s: a turn that began before the end it reads lists nothing, since its first calls are not there',
    (agent, turnStart, firstCall) => {
      // A large file written: its call and result hold more than the end that is read.
      const large = { type: 'attachment', attachment: { text: 'x'.repeat(TRANSCRIPT_TAIL_BYTES) } };
      const path = transcript([turnStart, firstCall, large, toolUse('toolu_late', 'Bash')]);
      expect(readTranscriptCalls(agent, path)).toBeUndefined();
    },
  );

  it('a turn whose prompt starts exactly where the end it reads starts is read whole', () => {
    const lines = (text: string) => [
      prompt('turn'),
      { type: 'attachment', attachment: { text } },
      toolUse('toolu_1', 'Bash'),
    ];
    const bytes = (text: string) =>
      Buffer.byteLength(
        `${lines(text)
          .map((line) => JSON.stringify(line))
          .join('\n')}\n`,
      );
    const padding = 'x'.repeat(TRANSCRIPT_TAIL_BYTES - bytes(''));
    expect(bytes(padding)).toBe(TRANSCRIPT_TAIL_BYTES);
    const path = transcript(lines(padding), `${JSON.stringify(prompt('an earlier turn'))}\n`);
    expect(readTranscriptCalls('claude-code', path)).toEqual([
      { tool_use_id: 'toolu_1', tool_name: 'Bash' },
    ]);
  });

  it('lists at most the newest 500 calls, as many as the kernel takes', () => {
    const many = Array.from({ length: 520 }, (_, i) => toolUse(`toolu_${i}`, 'Bash'));
    const calls = readTranscriptCalls('claude-code', transcript([prompt('turn'), ...many])) ?? [];
    expect(calls).toHaveLength(RAN_CALLS_MAX);
    expect(calls[0]?.tool_use_id).toBe('toolu_20');
    expect(RAN_CALLS_MAX).toBe(HOOKED_RAN_CALLS_MAX);
  });

  it('answers nothing, never throws, where there is no transcript it reads', () => {
    expect(readTranscriptCalls('claude-code', undefined)).toBeUndefined();
    expect(readTranscriptCalls('claude-code', '/nonexistent/session.jsonl')).toBeUndefined();
    expect(readTranscriptCalls('claude-code', tmpdir())).toBeUndefined();
    // A file that is not Gemini CLI's recording holds no Gemini CLI calls.
    const path = transcript([prompt('turn'), toolUse('toolu_1', 'Bash')]);
    expect(readTranscriptCalls('gemini', path)).toEqual([]);
  });
});
