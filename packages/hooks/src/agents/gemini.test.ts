import { describe, expect, it } from 'vitest';
import { gemini } from './gemini.js';
import type { NeutralEvent, Reply } from './types.js';

const before = gemini.parse({
  session_id: 'g1',
  hook_event_name: 'BeforeTool',
  timestamp: '2026-12-01T00:00:00Z',
  cwd: '/w',
  tool_name: 'run_shell_command',
  tool_input: { command: 'rm -r ./build' },
}) as NeutralEvent;

const out = (event: NeutralEvent, reply: Reply) => {
  const written = gemini.format(event, reply);
  expect(written.exitCode).toBe(0);
  return JSON.parse(written.stdout);
};

describe('gemini hook protocol', () => {
  it("says a shell call's own directory as its cwd, read from the payload's", () => {
    const cwdOf = (input: Record<string, unknown>, cwd?: string) =>
      (
        gemini.parse({
          session_id: 'g1',
          hook_event_name: 'BeforeTool',
          ...(cwd === undefined ? {} : { cwd }),
          tool_name: 'run_shell_command',
          tool_input: { command: 'cat key', ...input },
        }) as NeutralEvent
      ).cwd;
    expect(cwdOf({ dir_path: 'secrets' }, '/w')).toBe('/w/secrets');
    expect(cwdOf({ directory: 'secrets/' }, '/w/')).toBe('/w/secrets/');
    expect(cwdOf({ dir_path: '../x' }, '/w')).toBe('/x');
    expect(cwdOf({ dir_path: '/elsewhere' }, '/w')).toBe('/elsewhere');
    expect(cwdOf({ dir_path: '' }, '/w')).toBe('/w');
    expect(cwdOf({ dir_path: 7 }, '/w')).toBe('/w');
    // No absolute cwd to read it from: sent as it is, which the kernel cannot place (it asks).
    expect(cwdOf({ dir_path: 'secrets' })).toBe('secrets');
    expect(cwdOf({ dir_path: 'secrets' }, 'rel')).toBe('secrets');
    // Only the shell tool runs in a directory of its input.
    const read = gemini.parse({
      session_id: 'g1',
      hook_event_name: 'BeforeTool',
      cwd: '/w',
      tool_name: 'read_file',
      tool_input: { file_path: 'key', dir_path: 'secrets' },
    }) as NeutralEvent;
    expect(read.cwd).toBe('/w');
  });

  it('reads each hook event into the kernel event', () => {
    expect(before).toEqual({
      agent: 'gemini',
      session_id: 'g1',
      event: 'pre_tool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'rm -r ./build' },
      cwd: '/w',
      hook_event_name: 'BeforeTool',
    });
    expect(
      gemini.parse({
        session_id: 'g1',
        hook_event_name: 'AfterTool',
        tool_name: 'run_shell_command',
        tool_input: { command: 'ls' },
        tool_response: { llmContent: 'a b', returnDisplay: 'a b' },
      }),
    ).toMatchObject({ event: 'post_tool', outcome: 'succeeded', output: 'a b' });
    // Its shell tool reports success for a command that exited with another code than 0.
    const shell = (command: string, llmContent: string) =>
      gemini.parse({
        session_id: 'g1',
        hook_event_name: 'AfterTool',
        tool_name: 'run_shell_command',
        tool_input: { command },
        tool_response: { llmContent, returnDisplay: '' },
      });
    expect(shell('false', 'Output: (empty)\nExit Code: 1\nProcess Group PGID: 7')).toMatchObject({
      outcome: 'failed',
    });
    expect(shell('true', 'Output: (empty)\nExit Code: 0')).toMatchObject({ outcome: 'succeeded' });
    expect(shell('cat log', 'Output: the log says Exit Code: 3 once')).toMatchObject({
      outcome: 'succeeded',
    });
    // Only the tool's own line after the output counts, never one the command printed.
    const wrapped = (body: string) => `<untrusted_context>\n${body}\n</untrusted_context>`;
    expect(
      shell(
        'make',
        wrapped('Output: step 1\nExit Code: 0\nstep 2 broke\nExit Code: 2\nProcess Group PGID: 9'),
      ),
    ).toMatchObject({ outcome: 'failed' });
    expect(
      shell(
        'make',
        wrapped('Output: step 1\nExit Code: 1\nretried, all fine\nProcess Group PGID: 9'),
      ),
    ).toMatchObject({ outcome: 'succeeded' });
    expect(
      shell('kill', wrapped('Output: (empty)\nExit Code: 137\nSignal: 9\nProcess Group PGID: 4')),
    ).toMatchObject({ outcome: 'failed' });
    expect(
      gemini.parse({
        session_id: 'g1',
        hook_event_name: 'AfterTool',
        tool_name: 'run_shell_command',
        tool_input: {},
        tool_response: { llmContent: '', error: 'exit 1' },
      }),
    ).toMatchObject({ outcome: 'failed' });
    expect(
      gemini.parse({ session_id: 'g1', hook_event_name: 'BeforeAgent', prompt: 'p' }),
    ).toMatchObject({ event: 'turn_start', text: 'p' });
    expect(
      gemini.parse({ session_id: 'g1', hook_event_name: 'AfterAgent', prompt_response: 'done' }),
    ).toMatchObject({ event: 'stop', text: 'done' });
    expect(
      gemini.parse({ session_id: 'g1', hook_event_name: 'PreCompress', trigger: 'auto' }),
    ).toMatchObject({ event: 'pre_compact' });
    expect(gemini.parse({ session_id: 'g1', hook_event_name: 'BeforeModel' })).toBeNull();
  });

  it('answers in its own shape: allow, and deny with a reason (never a Claude-shaped deny)', () => {
    expect(out(before, { kind: 'allow', context: null })).toEqual({ decision: 'allow' });
    expect(out(before, { kind: 'deny', reason: 'no deletes here' })).toEqual({
      decision: 'deny',
      reason: 'no deletes here',
    });
    // No ask that works headless, no defer: both refuse with their reason.
    expect(out(before, { kind: 'ask', reason: 'needs you' })).toEqual({
      decision: 'deny',
      reason: 'needs you',
    });
    expect(out(before, { kind: 'pass', context: null, note: null }).decision).toBe('deny');
  });

  it('carries reminders on AfterTool and a stop continuation on AfterAgent', () => {
    const after = gemini.parse({
      session_id: 'g1',
      hook_event_name: 'AfterTool',
      tool_name: 'x',
      tool_input: {},
      tool_response: { llmContent: 'ok' },
    }) as NeutralEvent;
    expect(out(after, { kind: 'pass', context: 'Reminder: shadow', note: null })).toEqual({
      hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: 'Reminder: shadow' },
    });
    const stop = gemini.parse({ session_id: 'g1', hook_event_name: 'AfterAgent' }) as NeutralEvent;
    expect(out(stop, { kind: 'continue', feedback: 'Run the tests.' })).toEqual({
      decision: 'deny',
      reason: 'Run the tests.',
    });
    expect(gemini.nativeAsk).toBe(false);
    expect(gemini.canDefer).toBe(false);
  });
});
