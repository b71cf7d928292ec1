import { describe, expect, it } from 'vitest';
import { evaluatePermissions } from './evaluate-permissions.js';

describe('an argument pattern over an argv array', () => {
  const guardrails = [
    {
      owner: 'member:admin',
      document: [
        {
          ruleSetId: 'autonomous',
          rules: [
            {
              verdict: 'deny' as const,
              guardrail: true,
              tools: ['bash'],
              argument_patterns: { '/command': '*rm -rf*' },
              reason: 'no rm -rf',
            },
          ],
        },
      ],
    },
  ];
  const decide = (command: unknown, overlays: object = { guardrails }) =>
    evaluatePermissions({
      toolName: 'bash',
      input: { command },
      manifest: undefined,
      projectRoot: '/repo',
      ruleSetId: 'autonomous',
      customRuleSets: undefined,
      approvalMode: 'bypass',
      overlays,
    });

  it('binds a deny on the array joined by spaces, as the approval rules read it', () => {
    for (const command of [
      'rm -rf /',
      ['rm', '-rf', '/'],
      ['rm -rf /'],
      ['sudo', 'rm', '-rf', 1],
    ]) {
      expect(decide(command), JSON.stringify(command)).toMatchObject({
        verdict: 'deny',
        detail: 'no rm -rf',
      });
    }
    expect(decide(['ls', '-la']).verdict).toBe('allow');
    // Nested arrays and objects have no text to read.
    expect(decide([['rm', '-rf', '/']]).verdict).toBe('allow');
  });

  it('grants by an allow only a string it matches', () => {
    const allow = {
      conversation: [
        {
          ruleSetId: 'supervised',
          rules: [{ verdict: 'allow' as const, argument_patterns: { '/command': 'git status*' } }],
        },
      ],
    };
    const supervised = (command: unknown) =>
      evaluatePermissions({
        toolName: 'bash',
        input: { command },
        manifest: undefined,
        projectRoot: '/repo',
        ruleSetId: 'supervised',
        customRuleSets: undefined,
        approvalMode: 'bypass',
        overlays: allow,
      }).verdict;
    expect(supervised('git status')).toBe('allow');
    expect(supervised(['git', 'status'])).toBe('ask');
  });
});
