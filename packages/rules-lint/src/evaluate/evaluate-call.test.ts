import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApprovalMode, decide, type Origin, validateRuleList } from '@airlock/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';
import { evaluateCall } from './evaluate-call.js';

const dir = mkdtempSync(join(tmpdir(), 'rules-lint-eval-'));
const modes: ApprovalMode[] = ['bypass', 'ask', 'rules'];
const origins: Origin[] = ['model', 'author', 'kernel'];

// Small alphabets so random rules and calls actually meet.
const name = fc.constantFrom('bash', 'write', 'memory_read', 'bash__0123456789ab', 'sh');
const toolGlob = fc.constantFrom(
  'bash',
  'write',
  'memory_*',
  '*',
  'b?sh',
  'bash|write',
  'sh|memory_read',
);
const text = fc.constantFrom(
  'ls -la',
  'git push --force',
  'rm -rf /',
  '.env',
  'config/.env',
  '',
  'é',
);
const glob = fc.constantFrom('*', 'ls*', '*push*', '*.env', '??', 'é', '*rm*', '');
const rule = fc
  .record(
    {
      tool: toolGlob,
      verdict: fc.constantFrom('allow', 'ask', 'deny'),
      path: fc.constantFrom('command', 'args', 'path'),
      match: glob,
      reason: fc.constantFrom('because', '', 'x'.repeat(300)),
      origin: fc.constantFrom('model', 'author', 'kernel'),
    },
    { requiredKeys: ['tool', 'verdict'] },
  )
  .map((candidate) =>
    candidate.match !== undefined && candidate.path === undefined
      ? { ...candidate, path: 'command' }
      : candidate,
  );
const input = fc.record(
  {
    command: text,
    args: fc.array(fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), { maxLength: 3 }),
    path: text,
  },
  { requiredKeys: [] },
);
const call = fc.record({
  mode: fc.constantFrom(...modes),
  origin: fc.constantFrom(...origins),
  tool: name,
  input,
});

describe('eval agrees with core', () => {
  it('evaluateCall gives exactly core decide for random policies and calls', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), call, (rules, sample) => {
        const policy = validateRuleList(rules);
        if (!policy.ok) throw new Error(JSON.stringify(policy.problems));
        const output = evaluateCall(policy.value, sample);
        const decision = decide(policy.value, {
          mode: sample.mode,
          origin: sample.origin,
          toolName: sample.tool,
          toolInput: sample.input,
        });
        expect({ ...output, matches: undefined }).toEqual({ ...decision, matches: undefined });
        expect(output.matches.map((match) => match.index)).toEqual(decision.matched);
      }),
      { numRuns: 2000 },
    );
  });

  it('the eval command prints the same decision as core decide', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { maxLength: 6 }), call, async (rules, sample) => {
        writeFileSync(join(dir, 'rules.json'), JSON.stringify(rules));
        const run = await runCaptured(
          [
            'eval',
            '--rules',
            'rules.json',
            '--mode',
            sample.mode,
            '--origin',
            sample.origin,
            '--tool',
            sample.tool,
            '--input',
            JSON.stringify(sample.input),
          ],
          dir,
        );
        expect(run.code).toBe(0);
        const policy = validateRuleList(rules);
        if (!policy.ok) throw new Error('invalid');
        const decision = decide(policy.value, {
          mode: sample.mode,
          origin: sample.origin,
          toolName: sample.tool,
          toolInput: sample.input,
        });
        const printed = JSON.parse(run.stdout);
        expect({
          outcome: printed.outcome,
          granted_by: printed.granted_by,
          error: printed.error,
          matched: printed.matched,
        }).toEqual({
          outcome: decision.outcome,
          granted_by: decision.granted_by,
          error: decision.error,
          matched: decision.matched,
        });
      }),
      { numRuns: 150 },
    );
  });
});

/** The spec's modes table for model calls, and the origin rule for author and kernel rows. */
function expected(
  mode: ApprovalMode,
  origin: Origin,
  verdict: 'deny' | 'allow' | 'ask' | 'unmatched',
) {
  if (verdict === 'deny') return { outcome: 'denied', granted_by: null };
  if (origin !== 'model')
    return verdict === 'ask'
      ? { outcome: 'parked', granted_by: null }
      : { outcome: 'granted', granted_by: 'origin' };
  if (mode === 'bypass') return { outcome: 'granted', granted_by: 'mode' };
  if (verdict === 'allow') return { outcome: 'granted', granted_by: 'rule' };
  if (verdict === 'ask' || mode === 'ask') return { outcome: 'parked', granted_by: null };
  return { outcome: 'denied', granted_by: null };
}

describe('eval on every cell of the modes table and the origin rule', () => {
  const cells = modes.flatMap((mode) =>
    origins.flatMap((origin) =>
      (['deny', 'allow', 'ask', 'unmatched'] as const).map(
        (verdict) => [mode, origin, verdict] as const,
      ),
    ),
  );

  it.each(cells)('mode %s, origin %s, %s rule', async (mode, origin, verdict) => {
    const rules =
      verdict === 'unmatched'
        ? [{ tool: 'other', verdict: 'deny', origin }]
        : [{ tool: 'bash', verdict, origin, reason: 'the reason' }];
    writeFileSync(join(dir, `cell-${mode}-${origin}-${verdict}.json`), JSON.stringify(rules));
    const run = await runCaptured(
      [
        'eval',
        '--rules',
        `cell-${mode}-${origin}-${verdict}.json`,
        '--mode',
        mode,
        '--origin',
        origin,
        '--tool',
        'bash',
        '--input',
        '{"command":"ls"}',
      ],
      dir,
    );
    const printed = JSON.parse(run.stdout);
    expect({ outcome: printed.outcome, granted_by: printed.granted_by }).toEqual(
      expected(mode, origin, verdict),
    );
    const policy = validateRuleList(rules);
    if (!policy.ok) throw new Error('invalid');
    const { tool_name: _name, ...decision } = decide(policy.value, {
      mode,
      origin,
      toolName: 'bash',
      toolInput: { command: 'ls' },
    });
    const { matches: _matches, tool_name: _printedName, ...printedDecision } = printed;
    expect(printedDecision).toEqual(decision);
    if (verdict === 'deny')
      expect(printed.error).toEqual({ code: 'approval_denied', detail: 'the reason' });
    if (verdict === 'unmatched' && mode === 'rules' && origin === 'model') {
      expect(printed.error).toEqual({
        code: 'approval_denied',
        detail: 'no approval rule allows bash',
      });
    }
    expect(printed.matched).toEqual(verdict === 'unmatched' ? [] : [0]);
  });

  it('explains why each rule matched with the text at its path', async () => {
    const rules = [
      { tool: 'bash', path: 'command', match: '*push*', verdict: 'ask' },
      { tool: 'bash', verdict: 'allow' },
      { tool: 'bash', path: 'argv', verdict: 'deny' },
    ];
    writeFileSync(join(dir, 'explain.json'), JSON.stringify(rules));
    const run = await runCaptured(
      [
        'eval',
        '--rules',
        'explain.json',
        '--mode',
        'rules',
        '--tool',
        'bash__0123456789ab',
        '--input',
        '{"command":"git push","argv":["git",1,true]}',
      ],
      dir,
    );
    expect(JSON.parse(run.stdout)).toEqual({
      outcome: 'denied',
      granted_by: null,
      error: { code: 'approval_denied', detail: 'denied by approval rule 2' },
      matched: [0, 1, 2],
      matches: [
        { index: 0, verdict: 'ask', text: 'git push' },
        { index: 1, verdict: 'allow', text: null },
        { index: 2, verdict: 'deny', text: 'git 1 true' },
      ],
      tool_name: 'bash',
    });
  });

  it('takes the mode and aliases from a profile, and refuses an invalid declaration with exit 1', async () => {
    writeFileSync(
      join(dir, 'profile.json'),
      JSON.stringify({
        approval_mode: 'ask',
        tool_aliases: { shell: 'bash' },
        approval_rules: [{ tool: 'bash', verdict: 'allow' }],
      }),
    );
    const run = await runCaptured(['eval', '--rules', 'profile.json', '--tool', 'shell'], dir);
    expect(JSON.parse(run.stdout)).toMatchObject({
      outcome: 'granted',
      granted_by: 'rule',
      tool_name: 'bash',
    });
    writeFileSync(join(dir, 'refused.json'), '[{"tool": "bash"}]');
    const refused = await runCaptured(
      ['eval', '--rules', 'refused.json', '--mode', 'ask', '--tool', 'bash'],
      dir,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('verdict_missing');
    const badInput = await runCaptured(
      ['eval', '--rules', 'profile.json', '--tool', 'bash', '--input', '{nope'],
      dir,
    );
    expect(badInput.code).toBe(2);
  });
});
