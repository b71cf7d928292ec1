import { describe, expect, it } from 'vitest';
import { claudeCode } from './claude-code.js';
import { codex } from './codex.js';
import type { NeutralEvent, Reply } from './types.js';

const pre = (agent: typeof claudeCode) =>
  agent.parse({
    session_id: 's1',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'rm -r ./build' },
    tool_use_id: 'toolu_1',
    cwd: '/w',
  }) as NeutralEvent;

const out = (agent: typeof claudeCode, event: NeutralEvent, reply: Reply) => {
  const written = agent.format(event, reply);
  expect(written.exitCode).toBe(0);
  return JSON.parse(written.stdout);
};

describe.each([
  ['claude-code', claudeCode],
  ['codex', codex],
] as const)('%s hook protocol', (name, agent) => {
  it('reads each hook event into the kernel event', () => {
    expect(pre(agent)).toEqual({
      agent: name,
      session_id: 's1',
      event: 'pre_tool',
      tool_name: 'Bash',
      tool_input: { command: 'rm -r ./build' },
      tool_use_id: 'toolu_1',
      cwd: '/w',
      hook_event_name: 'PreToolUse',
    });
    expect(
      agent.parse({
        session_id: 's1',
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_use_id: 'toolu_2',
        tool_response: { stdout: 'a\n', stderr: '' },
      }),
    ).toMatchObject({
      event: 'post_tool',
      outcome: 'succeeded',
      output: '{"stdout":"a\\n","stderr":""}',
    });
    expect(
      agent.parse({ session_id: 's1', hook_event_name: 'UserPromptSubmit', prompt: 'hi' }),
    ).toMatchObject({ event: 'turn_start', text: 'hi' });
    expect(
      agent.parse({
        session_id: 's1',
        hook_event_name: 'Stop',
        stop_hook_active: false,
        last_assistant_message: 'done',
      }),
    ).toMatchObject({ event: 'stop', text: 'done' });
    expect(
      agent.parse({ session_id: 's1', hook_event_name: 'PreCompact', trigger: 'manual' }),
    ).toMatchObject({ event: 'pre_compact', trigger: 'manual' });
    expect(agent.parse({ session_id: 's1', hook_event_name: 'Notification' })).toBeNull();
    expect(() => agent.parse({ hook_event_name: 'PreToolUse' })).toThrow(/session_id/);
    expect(() => agent.parse([])).toThrow(/JSON object/);
    expect(() => agent.parse({ session_id: 's', hook_event_name: 'PreToolUse' })).toThrow(
      /tool_name/,
    );
  });

  it('grant -> allow, with reminders as additionalContext', () => {
    expect(out(agent, pre(agent), { kind: 'allow', context: 'Reminder: shadow' })).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Airlock granted this call',
        additionalContext: 'Reminder: shadow',
      },
    });
  });

  it('refuse -> deny with the reason the model reads', () => {
    expect(out(agent, pre(agent), { kind: 'deny', reason: 'no deletes here' })).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'no deletes here',
      },
    });
  });

  it('a reply that is not an allow never lets a tool call through', () => {
    const written = out(agent, pre(agent), { kind: 'pass', context: null, note: null });
    expect(written.hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('a stop hook continuation blocks the stop with the feedback; acknowledgements say nothing', () => {
    const stop = agent.parse({ session_id: 's1', hook_event_name: 'Stop' }) as NeutralEvent;
    expect(out(agent, stop, { kind: 'continue', feedback: 'Run the tests.' })).toEqual({
      decision: 'block',
      reason: 'Run the tests.',
    });
    expect(out(agent, stop, { kind: 'pass', context: null, note: null })).toEqual({});
    const prompt = agent.parse({
      session_id: 's1',
      hook_event_name: 'UserPromptSubmit',
      prompt: 'x',
    }) as NeutralEvent;
    expect(out(agent, prompt, { kind: 'deny', reason: 'turn_start failed' })).toEqual({
      decision: 'block',
      reason: 'turn_start failed',
    });
  });
});

describe('Claude Code only', () => {
  it('maps requires_user to its native ask and a headless park to defer', () => {
    expect(claudeCode.nativeAsk).toBe(true);
    expect(claudeCode.canDefer).toBe(true);
    const event = pre(claudeCode);
    expect(out(claudeCode, event, { kind: 'ask', reason: 'needs you' }).hookSpecificOutput).toEqual(
      {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: 'needs you',
      },
    );
    expect(
      out(claudeCode, event, { kind: 'defer', reason: 'waits' }).hookSpecificOutput
        .permissionDecision,
    ).toBe('defer');
  });

  it('Codex has no ask that fails closed and no defer', () => {
    expect(codex.nativeAsk).toBe(false);
    expect(codex.canDefer).toBe(false);
    expect(
      codex.parse({
        session_id: 's',
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: {},
        tool_response: 'x',
      }),
    ).toMatchObject({ answered_by_user: false });
  });
});
