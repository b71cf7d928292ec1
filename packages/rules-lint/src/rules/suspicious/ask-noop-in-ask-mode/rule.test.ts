import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decide, validateProfileConfiguration } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { lintFixture, lintWith } from '../../testing.js';
import { askNoopInAskMode } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('ask-noop-in-ask-mode', () => {
  it('reports model ask rules that no allow overlaps under mode ask', () => {
    const findings = lintFixture(askNoopInAskMode, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/approval_rules/1/verdict',
      '/approval_rules/3/verdict',
    ]);
  });

  it('is silent where an ask overrides an allow, for author rows, and under other modes', () => {
    expect(lintFixture(askNoopInAskMode, folder, 'good.json')).toEqual([]);
    const underRules = readFileSync(join(folder, 'fixtures/bad.json'), 'utf8').replace(
      '"ask",\n  "approval_rules"',
      '"rules",\n  "approval_rules"',
    );
    expect(lintWith(askNoopInAskMode, underRules)).toEqual([]);
  });
  it.each([
    [
      'an allow reading another path (one call carries both fields)',
      {
        approval_rules: [
          { tool: 'bash', path: 'cwd', match: '/tmp/*', verdict: 'allow' },
          { tool: 'bash', path: 'command', match: 'rm *', verdict: 'ask' },
        ],
      },
      { toolName: 'bash', toolInput: { command: 'rm -rf x', cwd: '/tmp/a' } },
    ],
    [
      'an alias of the allowed tool (an ask binds the name a call was made by)',
      {
        tool_names: ['bash', 'shell'],
        tool_aliases: { shell: 'bash' },
        approval_rules: [
          { tool: 'bash', verdict: 'allow' },
          { tool: 'sh*', verdict: 'ask' },
        ],
      },
      { toolName: 'shell', toolInput: {} },
    ],
  ])('keeps an ask that parks a call an allow grants: %s', (_label, declaration, call) => {
    const profile = { approval_mode: 'ask', ...declaration };
    expect(lintWith(askNoopInAskMode, JSON.stringify(profile))).toEqual([]);
    // The kernel's evaluator: the ask parks the call, and without it the allow grants it.
    const outcome = (rules: unknown[]) => {
      const validated = validateProfileConfiguration({ ...profile, approval_rules: rules });
      if (!validated.ok) throw new Error('the profile is valid');
      return decide(validated.value.policy, { mode: 'ask', origin: 'model', ...call }).outcome;
    };
    expect(outcome(profile.approval_rules)).toBe('parked');
    expect(outcome(profile.approval_rules.slice(0, 1))).toBe('granted');
  });
});
