import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceGlobMatch as globMatches } from '../glob/fixtures/reference-glob.js';
import { textAtPath } from '../path/tool-input-path.js';
import { validateRuleList } from '../rules/validate-rules.js';
import type { ApprovalMode, ApprovalRule, Origin, Verdict } from '../schemas/approval.js';
import { decide, explainMatches } from './decide.js';

function served(name: string): string {
  return /^(.+)__[0-9a-f]{12}$/.exec(name)?.[1] ?? name;
}

/** A plain scan of every rule, in order, with no index at all. */
function scanMatches(
  rules: readonly ApprovalRule[],
  origin: Origin,
  toolName: string,
  input: unknown,
) {
  const name = served(toolName);
  return rules.flatMap((rule, index) => {
    if ((rule.origin ?? 'model') !== origin) return [];
    if (!rule.tool.split('|').some((glob) => globMatches(glob, name))) return [];
    if (rule.path === undefined) return [index];
    const text = textAtPath(input, rule.path.split('.'));
    if (text === undefined) return [];
    return rule.match === undefined || globMatches(rule.match, text) ? [index] : [];
  });
}

/** The compiled policy of rules the test made valid. */
function policyOf(rules: readonly ApprovalRule[]) {
  const validated = validateRuleList(rules);
  if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
  return validated.value;
}

/** A model call to `bash` with this input matches exactly the rules a plain scan finds. */
function expectBashAgrees(
  policy: ReturnType<typeof policyOf>,
  rules: readonly ApprovalRule[],
  toolInput: unknown,
): void {
  const call = { mode: 'rules' as const, origin: 'model' as const, toolName: 'bash', toolInput };
  expect(decide(policy, call).matched).toEqual(scanMatches(rules, 'model', 'bash', toolInput));
}

const pieces = [
  'git',
  ' status',
  'rm -rf /',
  'curl ',
  '| sh',
  'a',
  'aa',
  'b',
  'é',
  '日本',
  '😀',
  '\uFFFD',
  ' ',
  '\n',
  '-',
];
const pieceArb = fc.constantFrom(...pieces);
const wordArb = fc
  .array(fc.oneof(pieceArb, fc.constant('?')), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.join(''));

/** Globs in the shapes real policies use: exact, prefix, suffix, fragment, prefix-and-suffix, several fragments, `?`. */
const matchArb: fc.Arbitrary<string> = fc.oneof(
  wordArb,
  wordArb.map((w) => `${w}*`),
  wordArb.map((w) => `*${w}`),
  wordArb.map((w) => `*${w}*`),
  fc.tuple(wordArb, wordArb).map(([a, b]) => `${a}*${b}`),
  fc.tuple(wordArb, wordArb, wordArb).map(([a, b, c]) => `*${a}*${b}*${c}`),
  fc.tuple(wordArb, wordArb).map(([a, b]) => `*${a}*${b}*`),
  fc.tuple(wordArb, wordArb).map(([p, a]) => `${p}*${a}*`),
  fc.tuple(wordArb, wordArb).map(([a, s]) => `*${a}*${s}`),
  fc.tuple(wordArb, wordArb, wordArb).map(([p, a, s]) => `${p}*${a}*${s}`),
  fc.tuple(wordArb, wordArb, wordArb).map(([a, b, c]) => `*${a}*${b}*${c}*`),
  fc.constantFrom('*', '**', '?', '??', '*?*', '', '*?'),
);

const ruleArb: fc.Arbitrary<ApprovalRule> = fc
  .record({
    tool: fc.constantFrom('bash', 'bash|edit', 'edit', 'b*', '*', 'ba?h', 'other'),
    verdict: fc.constantFrom('allow', 'ask', 'deny') as fc.Arbitrary<Verdict>,
    origin: fc.constantFrom('model', 'model', 'model', 'author') as fc.Arbitrary<Origin>,
    path: fc.option(fc.constantFrom('command', 'argv', 'edits.0.path', 'deep.x'), {
      nil: undefined,
    }),
    match: fc.option(matchArb, { nil: undefined }),
  })
  .map(({ tool, verdict, origin, path, match }) => {
    const rule: ApprovalRule = { tool, verdict, origin };
    if (path !== undefined) {
      rule.path = path;
      if (match !== undefined) rule.match = match;
    }
    return rule;
  });

const textArb = fc
  .array(fc.oneof(pieceArb, fc.constantFrom('\uD800', '\uDC00', 'x', '*', '?')), { maxLength: 12 })
  .map((parts) => parts.join(''));
const scalarArb = fc.oneof(
  textArb,
  fc.integer({ min: -5, max: 50 }),
  fc.boolean(),
  fc.constant(null),
);
const valueArb = fc.oneof(
  textArb,
  fc.array(scalarArb, { maxLength: 4 }),
  fc.array(fc.array(textArb, { maxLength: 2 }), { maxLength: 2 }),
  fc.integer(),
  fc.constant({ nested: 'x' }),
);
const inputArb = fc.record(
  {
    command: valueArb,
    argv: valueArb,
    edits: fc.array(fc.record({ path: valueArb }), { maxLength: 2 }),
    deep: fc.record({ x: valueArb }),
  },
  { requiredKeys: [] },
);
const callArb = fc.record({
  mode: fc.constantFrom('bypass', 'ask', 'rules') as fc.Arbitrary<ApprovalMode>,
  origin: fc.constantFrom('model', 'model', 'author') as fc.Arbitrary<Origin>,
  toolName: fc.constantFrom('bash', 'edit', 'bash__0123456789ab', 'bosh', 'read'),
  toolInput: inputArb,
});

describe('the indexed evaluator agrees with a plain scan of every rule', () => {
  it('on random policies and calls', () => {
    fc.assert(
      fc.property(
        fc.array(ruleArb, { maxLength: 40 }),
        fc.array(callArb, { minLength: 1, maxLength: 4 }),
        (rules, calls) => {
          const validated = validateRuleList(rules);
          if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
          for (const call of calls) {
            const expected = scanMatches(rules, call.origin, call.toolName, call.toolInput);
            expect(decide(validated.value, call).matched).toEqual(expected);
            expect(explainMatches(validated.value, call).map((m) => m.index)).toEqual(expected);
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('when the text is built from the rules, so matches are common', () => {
    fc.assert(
      fc.property(
        fc.array(ruleArb, { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        fc.constantFrom('', 'x', '\uD800', 'é'),
        (rules, picks, filler) => {
          const policy = policyOf(rules);
          const globs = rules.map((rule) => rule.match ?? '').filter((m) => m !== '');
          const text = picks
            .map((pick) => (globs[pick % Math.max(1, globs.length)] ?? '').replace(/[*?]/g, filler))
            .join(filler);
          for (const toolInput of [
            { command: text },
            { argv: text.split(' ') },
            { edits: [{ path: text }] },
          ]) {
            expectBashAgrees(policy, rules, toolInput);
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('on a two-letter alphabet, where literals overlap and repeat', () => {
    const word = fc.constantFrom('a', 'b', 'ab', 'ba', 'aa', 'aba');
    const shapes = fc.oneof(
      fc.tuple(word, word).map(([a, b]) => `*${a}*${b}*`),
      fc.tuple(word, word).map(([p, a]) => `${p}*${a}*`),
      fc.tuple(word, word).map(([a, s]) => `*${a}*${s}`),
      fc.tuple(word, word).map(([p, s]) => `${p}*${s}`),
      word.map((w) => `*${w}*`),
    );
    const rules = fc.array(
      shapes.map(
        (match): ApprovalRule => ({ tool: 'bash', path: 'command', match, verdict: 'allow' }),
      ),
      { minLength: 1, maxLength: 8 },
    );
    const text = fc
      .array(fc.constantFrom('a', 'b'), { maxLength: 9 })
      .map((units) => units.join(''));
    fc.assert(
      fc.property(rules, text, (list, command) => {
        expectBashAgrees(policyOf(list), list, { command });
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the indexed evaluator on long texts (read by four walks at once)', () => {
  it('agrees with a plain scan on texts of 256 to 3,000 units', () => {
    const longText = fc
      .array(fc.oneof(pieceArb, fc.constantFrom('\uD800', 'x', 'ab', 'ba')), {
        minLength: 60,
        maxLength: 400,
        size: 'max',
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(ruleArb, { minLength: 3, maxLength: 30 }), longText, (rules, text) => {
        const policy = policyOf(rules);
        for (const toolInput of [{ command: text }, { argv: text.split(' ') }]) {
          expectBashAgrees(policy, rules, toolInput);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('agrees when the text of a rule sits where one walk hands over to the next', () => {
    fc.assert(
      fc.property(
        // All on one path, so the group is large enough for its automaton.
        fc.array(
          fc.record({
            tool: fc.constant('bash'),
            path: fc.constant('command'),
            match: matchArb,
            verdict: fc.constantFrom('allow', 'ask', 'deny') as fc.Arbitrary<Verdict>,
          }),
          { minLength: 3, maxLength: 20 },
        ),
        fc.nat(),
        fc.integer({ min: 300, max: 1600 }),
        // Near a quarter, the middle or three quarters: the four walks hand over about there.
        fc.constantFrom(1, 2, 3),
        fc.integer({ min: -40, max: 40 }),
        (rules, pick, length, quarter, skew) => {
          const globs = rules.map((rule) => rule.match ?? '').filter((m) => m !== '');
          const instance = (globs[pick % Math.max(1, globs.length)] ?? 'git').replace(/[*?]/g, '');
          const before = Math.max(0, Math.floor((quarter * length) / 4) + skew);
          const command = `${'.'.repeat(before)}${instance}${'.'.repeat(length - before)}`;
          expectBashAgrees(policyOf(rules), rules, { command });
        },
      ),
      { numRuns: 600 },
    );
  });
});

describe('indexes shared between policies with the same globs', () => {
  it('keep each policy its own verdicts, reasons and tools', () => {
    const make = (verdict: Verdict, tool: string, reason: string) => {
      const validated = validateRuleList([
        { tool, path: 'command', match: 'ls*', verdict, reason },
        { tool: 'bash', path: 'command', match: '*rm*', verdict: 'ask' },
      ]);
      if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
      return validated.value;
    };
    const allow = make('allow', 'bash', 'a');
    const deny = make('deny', 'bash', 'no ls here');
    const elsewhere = make('deny', 'sh', 'other tool');
    const call = {
      mode: 'rules' as const,
      origin: 'model' as const,
      toolName: 'bash',
      toolInput: { command: 'ls -la' },
    };
    expect(decide(allow, call)).toMatchObject({ outcome: 'granted', matched: [0] });
    expect(decide(deny, call)).toMatchObject({
      outcome: 'denied',
      matched: [0],
      error: { detail: 'no ls here' },
    });
    expect(decide(elsewhere, call)).toMatchObject({ outcome: 'denied', matched: [] });
    expect(deny.candidates('model', 'bash').map((rule) => rule.verdict)).toEqual(['deny', 'ask']);
    expect(allow.candidates('model', 'bash').map((rule) => rule.verdict)).toEqual(['allow', 'ask']);
  });
});

describe('a policy whose literal automaton would be too large', () => {
  it('still decides exactly, by running every glob', () => {
    // 450 distinct fragments over 1,024 CJK characters: the dense table would pass its size bound.
    const alphabet = Array.from({ length: 1024 }, (_, i) => String.fromCharCode(0x4e00 + i));
    const rules: ApprovalRule[] = Array.from({ length: 450 }, (_, r) => ({
      tool: 'bash',
      path: 'command',
      match: `*${Array.from({ length: 25 }, (_, i) => alphabet[Math.imul(r * 31 + i, 2654435761) >>> 22]).join('')}*`,
      verdict: r % 3 === 0 ? 'deny' : 'allow',
    }));
    const policy = policyOf(rules);
    for (const command of [
      `ls ${rules[7]!.match!.slice(1, -1)} x`,
      `${rules[9]!.match!.slice(1, 20)}\uD800`,
      alphabet.slice(100, 160).join(''),
      'plain ascii',
    ]) {
      expectBashAgrees(policy, rules, { command });
    }
  });
});
