import { describe, expect, it } from 'vitest';
import { claudeCode } from '../agents/claude-code.js';
import { gemini } from '../agents/gemini.js';
import type { AgentProtocol } from '../agents/types.js';
import { runHook } from './run-hook.js';
import { topLevelEventName } from './unread-payload.js';

/** A payload's JSON cut off in its tool input, as a truncated stdin would hold it. */
function cut(payload: Record<string, unknown>): string {
  const text = JSON.stringify(payload);
  return text.slice(0, text.length - 5);
}

/** The hook's answer to a payload it cannot read (it fails before any kernel is asked). */
const answer = (protocol: AgentProtocol, input: string) =>
  runHook({ protocol, input, configPath: '/nonexistent', env: { PATH: '/nonexistent' } });

/** An edit of a hooks settings file: the model's input names the tool-check events. */
const HOOKS_EDIT = { file_path: '.claude/settings.json', content: '{"hooks":{"PreToolUse":[]}}' };

describe('a report of a call that ran, which cannot be read', () => {
  it.each([
    ['cut short', 'PostToolUse'],
    ['cut short', 'PostToolUseFailure'],
  ])('Claude Code %s %s: passes with a note for the user, never exit 2', async (_, name) => {
    const output = await answer(
      claudeCode,
      cut({
        session_id: 's1',
        hook_event_name: name,
        tool_name: 'Write',
        tool_input: HOOKS_EDIT,
        tool_response: { success: true },
      }),
    );
    expect(output.exitCode).toBe(0);
    const body = JSON.parse(output.stdout) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['systemMessage']);
    expect(body.systemMessage).toMatch(/could not read the claude-code hook payload/);
    expect(body.systemMessage).toMatch(/The call ran/);
  });

  it('Gemini CLI AfterTool with no tool name: a note, never a deny that would hide the result', async () => {
    const output = await answer(
      gemini,
      JSON.stringify({
        session_id: 's1',
        hook_event_name: 'AfterTool',
        tool_input: { server: 'hooks', event: 'BeforeTool' },
        tool_response: { llmContent: 'ok' },
      }),
    );
    expect(output.exitCode).toBe(0);
    const body = JSON.parse(output.stdout) as Record<string, unknown>;
    expect(body).not.toHaveProperty('decision');
    expect(body.systemMessage).toMatch(/has no tool_name.*The call ran/s);
  });

  it('a stop cut short passes with a note (exit 2 would make the agent go on)', async () => {
    const output = await answer(
      claudeCode,
      cut({ session_id: 's1', hook_event_name: 'Stop', last_assistant_message: '"PreToolUse"…' }),
    );
    expect(output.exitCode).toBe(0);
    expect(JSON.parse(output.stdout)).toEqual({
      systemMessage: expect.stringMatching(/could not read/),
    });
  });
});

describe('a tool check that cannot be read is refused', () => {
  it.each([
    [
      'cut short, its input naming a report',
      cut({
        session_id: 's1',
        hook_event_name: 'PreToolUse',
        tool_name: 'Write',
        tool_input: { content: '{"hook_event_name":"PostToolUse"}' },
      }),
    ],
    ['empty', ''],
    ['cut before its event name', '{"session_id":"s1","transcript_path":"/tmp/t'],
    ['not an object', '["PostToolUse"]'],
  ])('%s: exit 2 with the reason', async (_, input) => {
    const output = await answer(claudeCode, input);
    expect(output.exitCode).toBe(2);
    expect(output.stdout).toBe('');
    expect(output.stderr).toMatch(/^Airlock could not read the claude-code hook payload: /);
  });

  it('an event name the agent does not have, even an inherited key, is not handled', async () => {
    expect(claudeCode.parse({ session_id: 's1', hook_event_name: 'constructor' })).toBeNull();
    expect(gemini.eventOf('toString')).toBeNull();
  });
});

describe('topLevelEventName', () => {
  it.each([
    ['{"session_id":"s","hook_event_name":"PostToolUse","tool_input":{"a', 'PostToolUse'],
    ['{"tool_input":{"hook_event_name":"PreToolUse"},"hook_event_name":"Stop"', 'Stop'],
    ['{"tool_input":["hook_event_name","PreToolUse"],"hook_event_name":"Stop"}', 'Stop'],
    ['{"x":"a\\",\\"hook_event_name\\":\\"PreToolUse","hook_event_name":"Stop"', 'Stop'],
    [' {"hook_event_name" : "Pre\\u0054oolUse"', 'PreToolUse'],
    ['{"tool_input":{"hook_event_name":"PostToolUse"', undefined],
    ['{"hook_event_name":"PostTo', undefined],
    ['{"hook_event_name":5,"x":"Stop"}', undefined],
    ['{"a":1}{"hook_event_name":"Stop"}', undefined],
    ['', undefined],
  ])('%s -> %s', (text, expected) => {
    expect(topLevelEventName(text)).toBe(expected);
  });
});
