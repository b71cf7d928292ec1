import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PermissionCallFacts, permissionRuleMatches } from './match-rule.js';
import { exactCallRule } from './overlay-document.js';

const META = fc.constantFrom('*', '?', '[', ']', '|', 'b', 'a', 's', 'h', ' ', 'é');
const text = fc.array(META, { maxLength: 8 }).map((parts) => parts.join(''));
const name = fc.array(META, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
const input = fc.oneof(
  fc.record({ command: text }),
  fc.record({ path: text, content: text }),
  fc.array(text, { maxLength: 3 }),
  text,
);

const call = (toolName: string, callInput: unknown): PermissionCallFacts => ({
  toolName,
  entry: undefined,
  input: callInput,
  targets: [],
});

describe('exactCallRule', () => {
  it('matches its own call and no other name or input, whatever glob characters they hold', () => {
    fc.assert(
      fc.property(name, input, name, input, (tool, args, otherTool, otherArgs) => {
        const rule = { verdict: 'allow' as const, ...exactCallRule(tool, args) };
        expect(permissionRuleMatches(rule, call(tool, args))).toBe(true);
        if (otherTool !== tool) {
          expect(permissionRuleMatches(rule, call(otherTool, args))).toBe(false);
        }
        if (JSON.stringify(otherArgs) !== JSON.stringify(args)) {
          expect(permissionRuleMatches(rule, call(tool, otherArgs))).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('a tool named b* remembered exactly does not grant bash or bq', () => {
    const rule = { verdict: 'allow' as const, ...exactCallRule('b*', { q: '*' }) };
    expect(permissionRuleMatches(rule, call('b*', { q: '*' }))).toBe(true);
    expect(permissionRuleMatches(rule, call('bash', { q: '*' }))).toBe(false);
    expect(permissionRuleMatches(rule, call('bq', { q: '*' }))).toBe(false);
    expect(permissionRuleMatches(rule, call('b?', { q: '*' }))).toBe(false);
  });
});
