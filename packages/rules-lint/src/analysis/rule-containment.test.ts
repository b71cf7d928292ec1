import { type ApprovalRule, explainMatches, type Origin, validateRuleList } from '@airlock/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shadowedAllow } from '../rules/correctness/shadowed-allow/rule.js';
import { redundantRule } from '../rules/style/redundant-rule/rule.js';
import { findUncoveredCall, ruleImplies } from './rule-containment.js';
import { ruleEntries } from './rule-entry.js';

// A small world: every tool name and input text the rules below can tell apart, up to a bound.
const names = ['bash', 'sh', 'b', 'sx', 'bx', 'x', 'ba'];
const texts = ['', 'a', 'b', 'aa', 'ab', 'ba', 'bb', 'aab', 'abb', 'bab', 'aaa'];
const inputs: unknown[] = [{}, { cmd: 'a' }];
for (const text of texts)
  inputs.push({ command: text }, { command: text, cmd: text }, { command: [text, 'b'] });
const origins: Origin[] = ['model', 'author'];

const rule = fc
  .record(
    {
      tool: fc.constantFrom('bash', 'sh', 'b*', 's?', '*', 'bash|sh', 'b?|sh'),
      verdict: fc.constantFrom('allow', 'ask', 'deny'),
      path: fc.constantFrom('command', 'cmd'),
      match: fc
        .array(fc.constantFrom('a', 'b', '*', '?'), { maxLength: 3 })
        .map((chars) => chars.join('')),
      origin: fc.constantFrom(...origins),
      reason: fc.constantFrom('r', 's'),
    },
    { requiredKeys: ['tool', 'verdict'] },
  )
  .map((candidate) =>
    candidate.match !== undefined && candidate.path === undefined
      ? { ...candidate, path: 'command' }
      : candidate,
  );

function matchesOf(
  rules: ApprovalRule[],
  origin: Origin,
  toolName: string,
  toolInput: unknown,
): number[] {
  const policy = validateRuleList(rules);
  if (!policy.ok) throw new Error('invalid');
  return explainMatches(policy.value, { mode: 'rules', origin, toolName, toolInput }).map(
    (match) => match.index,
  );
}

describe('rule containment agrees with the kernel on a bounded world', () => {
  it('ruleImplies(A, B): every call A matches, B matches too', () => {
    let implied = 0;
    fc.assert(
      fc.property(rule, rule, (a, b) => {
        const rules = [a, { ...b, origin: a.origin }] as ApprovalRule[];
        const [entryA, entryB] = ruleEntries(rules, '');
        if (ruleImplies(entryA!, entryB!) !== true) return;
        implied += 1;
        for (const name of names) {
          for (const input of inputs) {
            const matched = matchesOf(rules, a.origin ?? 'model', name, input);
            if (matched.includes(0)) expect(matched, JSON.stringify({ name, input })).toContain(1);
          }
        }
      }),
      // Enough pairs that the implications checked are many in every run: about one pair in 15
      // implies (86 to 107 of 1,500 in three runs); of 300, a run found only 10 once and failed.
      { numRuns: 1500 },
    );
    expect(implied).toBeGreaterThan(10);
  });

  it('shadowed-allow reports an allow only if deny or ask rules of its origin match wherever it matches', () => {
    let shadowed = 0;
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 6 }), (list) => {
        const rules = list as ApprovalRule[];
        const entries = ruleEntries(rules, '');
        const reported = shadowedAllow.check({
          rules: entries,
          listLength: rules.length,
          mode: 'rules',
          toolAliases: {},
          tools: undefined,
        });
        shadowed += reported.length;
        for (const report of reported) {
          const index = Number(report.pointer.slice(1));
          const origin = rules[index]!.origin ?? 'model';
          for (const name of names) {
            for (const input of inputs) {
              const matched = matchesOf(rules, origin, name, input);
              if (!matched.includes(index)) continue;
              expect(
                matched.some((other) => rules[other]!.verdict !== 'allow'),
                JSON.stringify({ index, name, input }),
              ).toBe(true);
            }
          }
        }
      }),
      // About 8 reports per 100 lists (19 to 32 of 300 across six seeds); a CI run drew 9 of 300
      // and failed. 1,000 lists keep the count far from the floor on any seed.
      { numRuns: 1000 },
    );
    expect(shadowed).toBeGreaterThan(10);
  });

  it('redundant-rule reports a rule only if another of the same verdict and origin matches wherever it does', () => {
    let redundant = 0;
    fc.assert(
      fc.property(fc.array(rule, { minLength: 2, maxLength: 6 }), (list) => {
        const rules = list as ApprovalRule[];
        // The info note on a final catch-all claims no redundancy; every other report does.
        const reported = redundantRule
          .check({
            rules: ruleEntries(rules, ''),
            listLength: rules.length,
            mode: 'rules',
            toolAliases: {},
            tools: undefined,
          })
          .filter((report) => report.severity !== 'info');
        redundant += reported.length;
        for (const report of reported) {
          const index = Number(report.pointer.slice(1));
          const subject = rules[index]!;
          const origin = subject.origin ?? 'model';
          for (const name of names) {
            for (const input of inputs) {
              const matched = matchesOf(rules, origin, name, input);
              if (!matched.includes(index)) continue;
              const others = matched.filter(
                (other) => other !== index && rules[other]!.verdict === subject.verdict,
              );
              expect(others.length, JSON.stringify({ index, name, input })).toBeGreaterThan(0);
              if (subject.verdict === 'deny') {
                const first = matched.find((other) => rules[other]!.verdict === 'deny')!;
                const without = matched.find(
                  (other) => other !== index && rules[other]!.verdict === 'deny',
                )!;
                expect(rules[first]!.reason ?? '').toBe(
                  first === index ? (rules[without]!.reason ?? '') : (rules[first]!.reason ?? ''),
                );
              }
            }
          }
        }
      }),
      { numRuns: 1000 },
    );
    expect(redundant).toBeGreaterThan(10);
  });

  it('when an allow is not shadowed, the witness call it gives is granted ground: the allow matches and no deny or ask of its origin does', () => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let witnesses = 0;
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 6 }), (list) => {
        const rules = list as ApprovalRule[];
        const entries = ruleEntries(rules, '');
        const reported = new Set(
          shadowedAllow
            .check({
              rules: entries,
              listLength: rules.length,
              mode: 'rules',
              toolAliases: {},
              tools: undefined,
            })
            .map((report) => report.pointer),
        );
        for (const subject of entries) {
          if (subject.verdict !== 'allow') continue;
          const covers = entries.filter(
            (other) => other.origin === subject.origin && other.verdict !== 'allow',
          );
          const witness = findUncoveredCall(subject, covers);
          expect(witness).not.toBeUndefined();
          expect(reported.has(subject.pointer)).toBe(witness === null);
          if (!witness) continue;
          let toolName: string;
          let text: string | null;
          try {
            toolName = decoder.decode(witness.toolName);
            text = witness.text === null ? null : decoder.decode(witness.text);
          } catch {
            continue;
          }
          const input = text === null || subject.path === null ? {} : { [subject.path[0]!]: text };
          const matched = matchesOf(rules, subject.origin, toolName, input);
          expect(matched, JSON.stringify({ toolName, input })).toContain(subject.index);
          expect(matched.filter((index) => rules[index]!.verdict !== 'allow')).toEqual([]);
          witnesses += 1;
        }
      }),
      { numRuns: 300 },
    );
    expect(witnesses).toBeGreaterThan(50);
  });
});
