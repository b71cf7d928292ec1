import { describe, expect, it } from 'vitest';
import type { PermissionRule } from '../schemas/permissions.js';
import { evaluateGuardrails, evaluatePermissions } from './evaluate-permissions.js';
import { decideShell as decide, denySecrets, SHELL_MANIFEST } from './fixtures/shell-decide.js';

describe('a shell command naming what a deny or an ask guards', () => {
  it.each([
    'cat secrets/key',
    'cat ./secrets/*',
    'cat /repo/secrets/key',
    'grep -r x .',
    'grep -r x /repo',
    'find . -exec cat {} +',
    'tar c .',
    'tar czf out.tgz secrets',
    'cp -r secrets /tmp/x',
    "bash -c 'cat secrets/key'",
    'echo $(cat SECRETS/key)',
    'sort --output=x --files0-from=secrets/list',
    'grep x . > out.txt',
  ])('asks for %j', (command) => {
    const outcome = decide(command, [denySecrets]);
    expect(outcome).toMatchObject({ verdict: 'ask', scope: 'conversation', index: 0 });
    expect(outcome.detail).toContain('secrets/**');
  });

  it('reads a manifest command field and an argv too', () => {
    expect(decide('cat secrets/key', [denySecrets], 'run').verdict).toBe('ask');
    const argv = evaluatePermissions({
      toolName: 'bash',
      input: { argv: ['cat', 'secrets/key'] },
      manifest: SHELL_MANIFEST,
      projectRoot: '/repo',
      ruleSetId: 'autonomous',
      customRuleSets: undefined,
      approvalMode: 'bypass',
      overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [denySecrets] }] },
    });
    expect(argv.verdict).toBe('ask');
  });

  it.each(['ls src', 'cat src/a.ts README.md', 'npm test', 'grep -r x src', 'cat secretsx/a'])(
    'grants %j, which names nothing the rule guards',
    (command) => {
      expect(decide(command, [denySecrets]).verdict).toBe('allow');
    },
  );

  it('an allow over target patterns never grants a shell command by its words', () => {
    const allow: PermissionRule = { verdict: 'allow', targets: ['src/**'] };
    expect(decide('cat src/a.ts', [allow, { verdict: 'deny' }]).verdict).toBe('deny');
  });

  it('asks for a call whose commands are too long to read, whatever they name', () => {
    expect(decide(`ls ${'src/a.ts '.repeat(1000)}`, [denySecrets]).verdict).toBe('ask');
    expect(decide(`ls ${'src/a.ts '.repeat(100)}`, [denySecrets]).verdict).toBe('allow');
  });

  it('a guardrail asks of a run that selected no rule set', () => {
    const guardrail: PermissionRule = { ...denySecrets, guardrail: true };
    const document = [{ ruleSetId: 'autonomous', rules: [guardrail] }];
    const decided = (command: string) =>
      evaluateGuardrails({
        toolName: 'bash',
        input: { command },
        manifest: SHELL_MANIFEST,
        projectRoot: '/repo',
        guardrails: [{ owner: 'member:admin', document }],
      })?.verdict ?? 'none';
    expect(decided('cat secrets/key')).toBe('ask');
    expect(decided('cat src/a.ts')).toBe('none');
  });

  it('asks once matching the call would pass its budget of pattern and path pairs', () => {
    const patterns = Array.from({ length: 100 }, (_, index) => `guarded${index}/**`);
    const rules: PermissionRule[] = [{ verdict: 'deny', targets: patterns }];
    const words = (count: number) => Array.from({ length: count }, (_, index) => `src/f${index}`);
    // 100 patterns x 99 paths is within SHELL_MATCH_BUDGET (10,000); x 101 is past it.
    expect(decide(`cat ${words(99).join(' ')}`, rules).verdict).toBe('allow');
    expect(decide(`cat ${words(101).join(' ')}`, rules).verdict).toBe('ask');
  });
});
