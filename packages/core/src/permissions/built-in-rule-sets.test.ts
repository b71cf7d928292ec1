import { describe, expect, it } from 'vitest';
import { RISK_TRAITS, type RiskTrait } from '../schemas/permissions.js';
import { BUILT_IN_RULE_SET_IDS } from './built-in-rule-sets.js';
import { evaluatePermissions } from './evaluate-permissions.js';
import { FIXTURE_MANIFEST } from './fixtures/manifest.js';

/** Every risk trait under every built-in set: what spec 003's four sentences say. */
const EXPECTED: Record<(typeof BUILT_IN_RULE_SET_IDS)[number], Record<RiskTrait, string>> = {
  read_only: {
    read: 'allow',
    write: 'deny',
    delete: 'deny',
    destructive: 'deny',
    execute: 'deny',
    network: 'deny',
    interaction: 'allow',
    delegate: 'allow',
    plan_write: 'deny',
  },
  supervised: {
    read: 'allow',
    write: 'ask',
    delete: 'ask',
    destructive: 'ask',
    execute: 'ask',
    network: 'ask',
    interaction: 'allow',
    delegate: 'ask',
    plan_write: 'ask',
  },
  autonomous: {
    read: 'allow',
    write: 'allow',
    delete: 'allow',
    destructive: 'allow',
    execute: 'allow',
    network: 'allow',
    interaction: 'allow',
    delegate: 'allow',
    plan_write: 'allow',
  },
  planning: {
    read: 'allow',
    write: 'deny',
    delete: 'deny',
    destructive: 'deny',
    execute: 'ask',
    network: 'allow',
    interaction: 'allow',
    delegate: 'allow',
    plan_write: 'allow',
  },
};

function decide(ruleSetId: string, toolName: string, input: unknown = { path: 'src/a.ts' }) {
  return evaluatePermissions({
    toolName,
    input,
    manifest: FIXTURE_MANIFEST,
    projectRoot: '/repo',
    ruleSetId,
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: {},
  });
}

describe('built-in rule sets over the fixture manifest', () => {
  for (const id of BUILT_IN_RULE_SET_IDS) {
    for (const trait of RISK_TRAITS) {
      it(`${id}: a ${trait} tool is ${EXPECTED[id][trait]}`, () => {
        const outcome = decide(id, `t_${trait}`);
        expect(outcome.verdict).toBe(EXPECTED[id][trait]);
        expect(outcome.ruleSet).toEqual({ id, version: '1' });
        expect(outcome.scope).toBe('rule_set');
        if (outcome.verdict === 'deny') expect(outcome.detail).toMatch(id);
      });
    }
  }

  it('planning allows research (read + network) and read_only refuses it', () => {
    expect(decide('planning', 'fetch', { url: 'https://x.test' }).verdict).toBe('allow');
    expect(decide('read_only', 'fetch', { url: 'https://x.test' }).verdict).toBe('deny');
    expect(decide('supervised', 'fetch', { url: 'https://x.test' }).verdict).toBe('ask');
  });

  it('Baseline binds under every set: an unavailable tool is refused, an undeclared one asks', () => {
    for (const id of BUILT_IN_RULE_SET_IDS) {
      expect(decide(id, 'retired')).toMatchObject({ verdict: 'deny', scope: 'baseline' });
      expect(decide(id, 'nowhere').verdict).not.toBe('allow');
    }
    expect(decide('autonomous', 'nowhere')).toMatchObject({ verdict: 'ask', scope: 'baseline' });
    // The stricter of Baseline and the set wins: read_only keeps its deny.
    expect(decide('read_only', 'nowhere')).toMatchObject({ verdict: 'deny', scope: 'rule_set' });
  });

  it('Baseline asks before a mutation outside the project root, even under autonomous', () => {
    const outcome = decide('autonomous', 't_write', { path: '../etc/passwd' });
    expect(outcome).toMatchObject({ verdict: 'ask', scope: 'baseline' });
    expect(outcome.detail).toMatch('/etc/passwd');
    expect(decide('autonomous', 't_read', { path: '../etc/passwd' }).verdict).toBe('allow');
  });
});
