import { describe, expect, it } from 'vitest';
import type { ProblemCode } from '../issues/problem.js';
import { validateHookResult } from './validate-hook-result.js';
import { validateLifecycleHooks } from './validate-hooks.js';

function hookProblems(input: unknown) {
  const result = validateLifecycleHooks(input);
  return result.ok ? [] : result.problems.map(({ code, pointer }) => ({ code, pointer }));
}

describe('validateLifecycleHooks', () => {
  it('accepts the four events, null and {}', () => {
    const hooks = {
      turn_start: { tool: 'execution_check', timeout_ms: 30000 },
      pre_compact: { tool: 'execution_check', timeout_ms: 1 },
      post_compact: { tool: 'execution_check', timeout_ms: 300000 },
      stop: { tool: 'execution_check', timeout_ms: 30000, max_continuations: 20 },
    };
    expect(validateLifecycleHooks(hooks)).toEqual({ ok: true, value: hooks });
    expect(validateLifecycleHooks(null)).toEqual({ ok: true, value: {} });
    expect(validateLifecycleHooks({})).toEqual({ ok: true, value: {} });
    expect(
      validateLifecycleHooks({ stop: { tool: 't', timeout_ms: 5, max_continuations: 0 } }).ok,
    ).toBe(true);
  });

  const cases: [string, unknown, ProblemCode, string][] = [
    ['an array', [], 'hooks_not_object', ''],
    [
      'an unknown event',
      { on_error: { tool: 't', timeout_ms: 1 } },
      'hook_event_unknown',
      '/on_error',
    ],
    ['a hook that is not an object', { turn_start: 'check' }, 'hook_not_object', '/turn_start'],
    [
      'an unknown key',
      { turn_start: { tool: 't', timeout_ms: 1, retries: 3 } },
      'hook_key_unknown',
      '/turn_start/retries',
    ],
    [
      'max_continuations outside stop',
      { pre_compact: { tool: 't', timeout_ms: 1, max_continuations: 1 } },
      'hook_key_unknown',
      '/pre_compact/max_continuations',
    ],
    ['a missing tool', { turn_start: { timeout_ms: 1 } }, 'hook_tool_missing', '/turn_start'],
    [
      'an empty tool',
      { turn_start: { tool: '', timeout_ms: 1 } },
      'hook_tool_missing',
      '/turn_start/tool',
    ],
    ['a missing timeout', { turn_start: { tool: 't' } }, 'hook_timeout_missing', '/turn_start'],
    [
      'a timeout of 0',
      { turn_start: { tool: 't', timeout_ms: 0 } },
      'hook_timeout_invalid',
      '/turn_start/timeout_ms',
    ],
    [
      'a timeout over 300000',
      { turn_start: { tool: 't', timeout_ms: 300001 } },
      'hook_timeout_invalid',
      '/turn_start/timeout_ms',
    ],
    [
      'a fractional timeout',
      { turn_start: { tool: 't', timeout_ms: 1.5 } },
      'hook_timeout_invalid',
      '/turn_start/timeout_ms',
    ],
    [
      'a timeout as text',
      { turn_start: { tool: 't', timeout_ms: '10' } },
      'hook_timeout_invalid',
      '/turn_start/timeout_ms',
    ],
    [
      'stop without max_continuations',
      { stop: { tool: 't', timeout_ms: 1 } },
      'hook_max_continuations_missing',
      '/stop',
    ],
    [
      'max_continuations over 20',
      { stop: { tool: 't', timeout_ms: 1, max_continuations: 21 } },
      'hook_max_continuations_invalid',
      '/stop/max_continuations',
    ],
    [
      'negative max_continuations',
      { stop: { tool: 't', timeout_ms: 1, max_continuations: -1 } },
      'hook_max_continuations_invalid',
      '/stop/max_continuations',
    ],
  ];

  it.each(cases)('refuses %s', (_name, input, code, pointer) => {
    expect(hookProblems(input)).toContainEqual({ code, pointer });
  });
});

function resultProblems(event: Parameters<typeof validateHookResult>[0], input: unknown) {
  const result = validateHookResult(event, input);
  return result.ok ? [] : result.problems.map(({ code, pointer }) => ({ code, pointer }));
}

describe('validateHookResult', () => {
  it('accepts acknowledgements for every event and a continuation for stop', () => {
    for (const event of ['turn_start', 'pre_compact', 'post_compact', 'stop'] as const) {
      expect(validateHookResult(event, { continue: false }).ok).toBe(true);
    }
    expect(
      validateHookResult('stop', { continue: true, feedback: 'Run the tests first.' }).ok,
    ).toBe(true);
    expect(validateHookResult('stop', { continue: true, feedback: 'é'.repeat(8192) }).ok).toBe(
      true,
    );
  });

  const cases: [string, Parameters<typeof validateHookResult>[0], unknown, ProblemCode, string][] =
    [
      ['a result that is not an object', 'stop', 'ok', 'hook_result_not_object', ''],
      ['a missing continue', 'stop', {}, 'hook_result_continue_invalid', ''],
      ['continue as text', 'stop', { continue: 'no' }, 'hook_result_continue_invalid', '/continue'],
      [
        'continue:true outside stop',
        'turn_start',
        { continue: true, feedback: 'x' },
        'hook_result_continue_not_allowed',
        '/continue',
      ],
      [
        'continue:true without feedback',
        'stop',
        { continue: true },
        'hook_result_feedback_missing',
        '',
      ],
      [
        'blank feedback',
        'stop',
        { continue: true, feedback: ' \n\t' },
        'hook_result_feedback_invalid',
        '/feedback',
      ],
      [
        'feedback that is not text',
        'stop',
        { continue: true, feedback: 3 },
        'hook_result_feedback_invalid',
        '/feedback',
      ],
      [
        'feedback with NUL',
        'stop',
        { continue: true, feedback: 'a\u0000b' },
        'hook_result_feedback_invalid',
        '/feedback',
      ],
      [
        'feedback over 16 KiB',
        'stop',
        { continue: true, feedback: 'é'.repeat(8193) },
        'hook_result_feedback_invalid',
        '/feedback',
      ],
      [
        'feedback with continue:false',
        'stop',
        { continue: false, feedback: 'x' },
        'hook_result_feedback_not_allowed',
        '/feedback',
      ],
      [
        'another field',
        'stop',
        { continue: false, verdict: 'ok' },
        'hook_result_key_unknown',
        '/verdict',
      ],
      [
        'another field on a continuation',
        'stop',
        { continue: true, feedback: 'x', extra: 1 },
        'hook_result_key_unknown',
        '/extra',
      ],
    ];

  it.each(cases)('refuses %s', (_name, event, input, code, pointer) => {
    expect(resultProblems(event, input)).toContainEqual({ code, pointer });
  });
});
