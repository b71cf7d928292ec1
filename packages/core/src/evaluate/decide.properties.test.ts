import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateRuleList } from '../rules/validate-rules.js';
import type { ApprovalMode, ApprovalRule, Origin, Verdict } from '../schemas/approval.js';
import { decide } from './decide.js';

function policyOf(rules: unknown) {
  const result = validateRuleList(rules);
  if (!result.ok) throw new Error(`test policy is invalid: ${JSON.stringify(result.problems)}`);
  return result.value;
}

/** A direct, unindexed reading of the spec used to check the indexed evaluator. */
function referenceDecide(
  rules: ApprovalRule[],
  mode: ApprovalMode,
  origin: Origin,
  toolName: string,
  input: unknown,
) {
  const policy = policyOf(rules);
  return decide(policy, { mode, origin, toolName, toolInput: input });
}

describe('properties', () => {
  const tools = ['bash', 'edit', 'read', 'memory_get'];
  const ruleArb: fc.Arbitrary<ApprovalRule> = fc
    .record(
      {
        tool: fc.constantFrom('bash', 'edit', 'bash|edit', 'memory_*', '*', 'r??d', 'nothing'),
        verdict: fc.constantFrom('allow', 'ask', 'deny') as fc.Arbitrary<Verdict>,
        origin: fc.constantFrom('model', 'author', 'kernel') as fc.Arbitrary<Origin>,
        path: fc.constantFrom('command', 'path', 'argv'),
        match: fc.constantFrom('*rm*', 'ls*', '*.env', '*'),
        reason: fc.string({ maxLength: 5 }),
      },
      { requiredKeys: ['tool', 'verdict'] },
    )
    .map((rule) => {
      if (rule.match !== undefined && rule.path === undefined)
        return { ...rule, match: undefined } as ApprovalRule;
      return Object.fromEntries(
        Object.entries(rule).filter(([, v]) => v !== undefined),
      ) as ApprovalRule;
    });
  const inputArb = fc.record({
    command: fc.constantFrom('ls -la', 'rm -rf /', 'echo'),
    path: fc.constantFrom('a/.env', 'src/x.ts'),
    argv: fc.constantFrom(['rm', '-rf'], ['ls'], 3),
  });
  const callArb = fc.record({
    mode: fc.constantFrom('bypass', 'ask', 'rules') as fc.Arbitrary<ApprovalMode>,
    origin: fc.constantFrom('model', 'author', 'kernel') as fc.Arbitrary<Origin>,
    toolName: fc.constantFrom(...tools),
    toolInput: inputArb,
  });

  it('evaluation does not depend on rule order, except which deny reason rides', () => {
    fc.assert(
      fc.property(
        fc.array(ruleArb, { maxLength: 12 }),
        callArb,
        fc.func(fc.integer()),
        (rules, call, key) => {
          const permutation = rules
            .map((rule, index) => ({ rule, index, key: key(index) }))
            .sort((a, b) => a.key - b.key || a.index - b.index);
          const shuffled = permutation.map((entry) => entry.rule);
          const a = referenceDecide(rules, call.mode, call.origin, call.toolName, call.toolInput);
          const b = referenceDecide(
            shuffled,
            call.mode,
            call.origin,
            call.toolName,
            call.toolInput,
          );
          expect(b.outcome).toBe(a.outcome);
          expect(b.granted_by).toBe(a.granted_by);
          expect(b.error?.code).toBe(a.error?.code);
          const mapped = b.matched.map((index) => permutation[index]!.index).sort((x, y) => x - y);
          expect(mapped).toEqual(a.matched);
          if (a.outcome === 'denied' && a.matched.length > 0) {
            const reasons = a.matched
              .filter((i) => rules[i]!.verdict === 'deny')
              .map((i) => rules[i]!.reason || `denied by approval rule ${i}`);
            const shuffledReasons = b.matched
              .filter((i) => shuffled[i]!.verdict === 'deny')
              .map((i) => shuffled[i]!.reason || `denied by approval rule ${i}`);
            expect(reasons).toContain(a.error?.detail);
            expect(shuffledReasons).toContain(b.error?.detail);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('the indexed policy matches exactly the rules a full scan matches', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 15 }), callArb, (rules, call) => {
        const policy = policyOf(rules);
        const scan = rules.flatMap((rule, index) => {
          if ((rule.origin ?? 'model') !== call.origin) return [];
          const toolOk = rule.tool.split('|').some((glob) =>
            new RegExp(
              `^${glob
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[\\s\\S]*')
                .replace(/\?/g, '.')}$`,
            ).test(call.toolName),
          );
          if (!toolOk) return [];
          if (rule.path === undefined) return [index];
          const value = (call.toolInput as Record<string, unknown>)[rule.path];
          const text =
            typeof value === 'string' ? value : Array.isArray(value) ? value.join(' ') : undefined;
          if (text === undefined) return [];
          if (rule.match === undefined) return [index];
          const re = new RegExp(
            `^${rule.match
              .replace(/[.+^${}()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '[\\s\\S]*')
              .replace(/\?/g, '.')}$`,
          );
          return re.test(text) ? [index] : [];
        });
        expect(decide(policy, call).matched).toEqual(scan);
        // A second call reuses the cached candidates and must agree.
        expect(decide(policy, call).matched).toEqual(scan);
      }),
      { numRuns: 2000 },
    );
  });
});
