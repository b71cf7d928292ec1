import { describe, expect, it } from 'vitest';
import { validateRuleList } from '../rules/validate-rules.js';
import type { ApprovalMode, Origin } from '../schemas/approval.js';
import { aliasedFrom } from './called-name.js';
import { decide, explainMatches } from './decide.js';

function policyOf(rules: unknown) {
  const result = validateRuleList(rules, { toolAliases: { deploy: 'noop' } });
  if (!result.ok) throw new Error(`test policy is invalid: ${JSON.stringify(result.problems)}`);
  return result.value;
}

const call = (toolName: string, mode: ApprovalMode = 'rules', origin: Origin = 'model') => ({
  mode,
  origin,
  toolName,
  toolInput: { to: 'prod' },
});

describe('a call an alias renamed', () => {
  it('names the called name only when an alias changed it', () => {
    expect(aliasedFrom('deploy', 'noop')).toBe('deploy');
    expect(aliasedFrom('deploy__0123456789ab', 'noop')).toBe('deploy');
    expect(aliasedFrom('bash__0123456789ab', 'bash')).toBeNull();
    expect(aliasedFrom('noop', 'noop')).toBeNull();
  });

  it('is refused by a deny rule naming the called name, under every mode', () => {
    const policy = policyOf([
      { tool: 'noop', verdict: 'allow' },
      { tool: 'deploy', path: 'to', match: 'prod', verdict: 'deny', reason: 'not prod' },
    ]);
    for (const mode of ['bypass', 'ask', 'rules'] as const) {
      for (const name of ['deploy', 'deploy__0123456789ab']) {
        expect(decide(policy, call(name, mode))).toMatchObject({
          outcome: 'denied',
          error: { detail: 'not prod' },
          matched: [0, 1],
          tool_name: 'noop',
        });
      }
    }
    // Called by the resolved name itself, the rule on deploy does not apply.
    expect(decide(policy, call('noop')).outcome).toBe('granted');
  });

  it('parks on an ask rule naming the called name, for its origin', () => {
    const policy = policyOf([
      { tool: 'noop', verdict: 'allow' },
      { tool: 'deploy', verdict: 'ask', origin: 'author' },
    ]);
    expect(decide(policy, call('deploy', 'rules', 'author')).outcome).toBe('parked');
    expect(decide(policy, call('deploy', 'rules', 'model')).outcome).toBe('granted');
    expect(explainMatches(policy, call('deploy', 'rules', 'author'))).toEqual([
      { index: 1, verdict: 'ask', text: null },
    ]);
  });

  it('is granted by an allow of the resolved name, never of the called name alone', () => {
    const resolved = policyOf([{ tool: 'noop', verdict: 'allow' }]);
    expect(decide(resolved, call('deploy'))).toMatchObject({
      outcome: 'granted',
      granted_by: 'rule',
    });
    const calledOnly = policyOf([{ tool: 'deploy', verdict: 'allow' }]);
    expect(decide(calledOnly, call('deploy'))).toMatchObject({
      outcome: 'denied',
      matched: [],
      error: { detail: 'no approval rule allows noop' },
    });
  });
});

describe("a run's tool_names and an aliased call", () => {
  const result = validateRuleList([], { toolAliases: { deploy: 'noop' }, toolNames: ['deploy'] });
  if (!result.ok) throw new Error('test policy is invalid');
  const policy = result.value;

  it('admits a runner-qualified call of a declared name as it admits the name itself', () => {
    for (const name of ['deploy', 'deploy__0123456789ab']) {
      expect(decide(policy, call(name, 'bypass'))).toMatchObject({
        outcome: 'granted',
        tool_name: 'noop',
      });
    }
    expect(decide(policy, call('other__0123456789ab', 'bypass')).outcome).toBe('denied');
  });
});
