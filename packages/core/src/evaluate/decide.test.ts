import { describe, expect, it } from 'vitest';
import { validateProfileConfiguration } from '../rules/validate-profile.js';
import { validateRuleList } from '../rules/validate-rules.js';
import type { ApprovalMode, Decision, Origin, Verdict } from '../schemas/approval.js';
import { decide, explainMatches } from './decide.js';

function policyOf(rules: unknown, toolAliases?: Record<string, string>) {
  const result = validateRuleList(rules, { toolAliases });
  if (!result.ok) throw new Error(`test policy is invalid: ${JSON.stringify(result.problems)}`);
  return result.value;
}

type Cell = Pick<Decision, 'outcome' | 'granted_by'> & { detail?: string };

const granted = (by: 'mode' | 'rule' | 'origin'): Cell => ({ outcome: 'granted', granted_by: by });
const parks: Cell = { outcome: 'parked', granted_by: null };
const refused = (detail: string): Cell => ({ outcome: 'denied', granted_by: null, detail });

/** The spec's modes table for model rows: mode x (which rule matches). */
const MODES_TABLE: Record<ApprovalMode, Record<Verdict | 'unmatched', Cell>> = {
  bypass: {
    deny: refused('no force'),
    allow: granted('mode'),
    ask: granted('mode'),
    unmatched: granted('mode'),
  },
  ask: { deny: refused('no force'), allow: granted('rule'), ask: parks, unmatched: parks },
  rules: {
    deny: refused('no force'),
    allow: granted('rule'),
    ask: parks,
    unmatched: refused('no approval rule allows bash'),
  },
};

function check(decision: Decision, expected: Cell) {
  expect(decision.outcome).toBe(expected.outcome);
  expect(decision.granted_by).toBe(expected.granted_by);
  if (expected.detail)
    expect(decision.error).toEqual({ code: 'approval_denied', detail: expected.detail });
  else expect(decision.error).toBeNull();
}

describe('the modes table (model rows)', () => {
  for (const [mode, row] of Object.entries(MODES_TABLE) as [
    ApprovalMode,
    Record<Verdict | 'unmatched', Cell>,
  ][]) {
    for (const [column, expected] of Object.entries(row) as [Verdict | 'unmatched', Cell][]) {
      it(`${mode} x ${column} -> ${expected.outcome}${expected.granted_by ? ` by ${expected.granted_by}` : ''}`, () => {
        const rules =
          column === 'unmatched'
            ? [{ tool: 'other', verdict: 'allow' }]
            : [{ tool: 'bash', verdict: column, reason: 'no force' }];
        const decision = decide(policyOf(rules), {
          mode,
          origin: 'model',
          toolName: 'bash',
          toolInput: {},
        });
        check(decision, expected);
        expect(decision.matched).toEqual(column === 'unmatched' ? [] : [0]);
      });
    }
  }
});

describe('origin rules (author and kernel rows)', () => {
  for (const origin of ['author', 'kernel'] as Origin[]) {
    for (const mode of ['bypass', 'ask', 'rules'] as ApprovalMode[]) {
      it(`${origin} under ${mode}: granted by origin when no rule names the origin`, () => {
        const rules = [
          { tool: 'bash', verdict: 'deny' },
          { tool: 'bash', verdict: 'ask' },
        ];
        const decision = decide(policyOf(rules), { mode, origin, toolName: 'bash', toolInput: {} });
        check(decision, granted('origin'));
        expect(decision.matched).toEqual([]);
      });
      it(`${origin} under ${mode}: parks on an ask rule naming ${origin}`, () => {
        const decision = decide(policyOf([{ tool: 'bash', verdict: 'ask', origin }]), {
          mode,
          origin,
          toolName: 'bash',
          toolInput: {},
        });
        check(decision, parks);
      });
      it(`${origin} under ${mode}: refused by a deny rule naming ${origin}`, () => {
        const rules = [{ tool: 'bash', verdict: 'deny', origin, reason: 'not even you' }];
        check(
          decide(policyOf(rules), { mode, origin, toolName: 'bash', toolInput: {} }),
          refused('not even you'),
        );
      });
      it(`${origin} under ${mode}: an allow rule naming ${origin} changes nothing`, () => {
        const decision = decide(policyOf([{ tool: 'bash', verdict: 'allow', origin }]), {
          mode,
          origin,
          toolName: 'bash',
          toolInput: {},
        });
        check(decision, granted('origin'));
        expect(decision.matched).toEqual([0]);
      });
    }
  }

  it('a rule naming author does not touch model rows', () => {
    const decision = decide(policyOf([{ tool: 'bash', verdict: 'deny', origin: 'author' }]), {
      mode: 'bypass',
      origin: 'model',
      toolName: 'bash',
      toolInput: {},
    });
    check(decision, granted('mode'));
  });
});

describe('strictness: deny > ask > allow', () => {
  const rules = [
    { tool: 'bash', verdict: 'allow' },
    { tool: 'bash', path: 'command', match: '*push*', verdict: 'ask' },
    { tool: 'bash', path: 'command', match: '*--force*', verdict: 'deny', reason: 'no force push' },
    {
      tool: 'bash',
      path: 'command',
      match: '*push --force*',
      verdict: 'deny',
      reason: 'second reason',
    },
  ];
  const policy = policyOf(rules);
  for (const mode of ['bypass', 'ask', 'rules'] as ApprovalMode[]) {
    it(`${mode}: a deny wins over a later or earlier allow and ask, first deny's reason rides`, () => {
      const decision = decide(policy, {
        mode,
        origin: 'model',
        toolName: 'bash',
        toolInput: { command: 'git push --force' },
      });
      check(decision, refused('no force push'));
      expect(decision.matched).toEqual([0, 1, 2, 3]);
    });
  }
  it('ask wins over allow under rules', () => {
    check(
      decide(policy, {
        mode: 'rules',
        origin: 'model',
        toolName: 'bash',
        toolInput: { command: 'git push' },
      }),
      parks,
    );
  });
  it('allow grants alone', () => {
    check(
      decide(policy, {
        mode: 'rules',
        origin: 'model',
        toolName: 'bash',
        toolInput: { command: 'ls' },
      }),
      granted('rule'),
    );
  });
});

describe('deny detail', () => {
  it('falls back to the rule index without a reason', () => {
    const policy = policyOf([
      { tool: 'x', verdict: 'allow' },
      { tool: 'bash', verdict: 'deny' },
    ]);
    check(
      decide(policy, { mode: 'ask', origin: 'model', toolName: 'bash', toolInput: {} }),
      refused('denied by approval rule 1'),
    );
  });

  it('cuts the reason to 256 bytes on a character boundary', () => {
    const reason = `${'a'.repeat(255)}é and more`;
    const decision = decide(policyOf([{ tool: 'bash', verdict: 'deny', reason }]), {
      mode: 'ask',
      origin: 'model',
      toolName: 'bash',
      toolInput: {},
    });
    expect(decision.error?.detail).toBe('a'.repeat(255));
    const exact = `${'b'.repeat(254)}é`;
    const whole = decide(policyOf([{ tool: 'bash', verdict: 'deny', reason: `${exact}z` }]), {
      mode: 'ask',
      origin: 'model',
      toolName: 'bash',
      toolInput: {},
    });
    expect(whole.error?.detail).toBe(exact);
    const emoji = '😀'.repeat(100);
    const cut = decide(policyOf([{ tool: 'bash', verdict: 'deny', reason: emoji }]), {
      mode: 'ask',
      origin: 'model',
      toolName: 'bash',
      toolInput: {},
    });
    expect(cut.error?.detail).toBe('😀'.repeat(64));
  });

  it('names the resolved tool when rules refuses an unmatched call', () => {
    const policy = policyOf([], { shell: 'bash' });
    check(
      decide(policy, {
        mode: 'rules',
        origin: 'model',
        toolName: 'shell__0123456789ab',
        toolInput: {},
      }),
      refused('no approval rule allows bash'),
    );
  });
});

describe('tool names', () => {
  const policy = policyOf(
    [
      { tool: 'bash|start_process', verdict: 'allow' },
      { tool: 'memory_*', verdict: 'allow' },
    ],
    { sh: 'bash' },
  );
  const toolDecision = (toolName: string) =>
    decide(policy, { mode: 'rules', origin: 'model', toolName, toolInput: {} });

  it.each([
    ['bash', true, 'a literal alternative'],
    ['start_process', true, 'the second alternative'],
    ['bash__0123456789ab', true, 'a runner-qualified callable is checked as the served name'],
    ['sh', true, 'an alias resolves to its tool'],
    ['sh__abcdef012345', true, 'qualification is removed, then the alias applies'],
    ['memory_read', true, 'a wildcard alternative'],
    ['bashful', false, 'globs are anchored'],
    ['bash__0123456789AB', false, 'the suffix is lowercase hex only'],
    ['bash__0123456789a', false, 'the suffix is exactly 12 hex digits'],
    ['xbash', false, 'anchored at the start'],
  ])('%s granted: %s (%s)', (name, expected) => {
    expect(toolDecision(name).outcome === 'granted').toBe(expected);
  });

  it('reports the resolved name', () => {
    expect(toolDecision('sh__0123456789ab').tool_name).toBe('bash');
  });
});

describe('paths and matches', () => {
  const policy = policyOf([
    { tool: 'bash', path: 'argv', match: 'rm -rf *', verdict: 'deny', reason: 'no rm' },
    { tool: 'edit', path: 'edits.0.path', match: '*.env', verdict: 'deny' },
    { tool: 'edit', path: 'edits.0.path', verdict: 'allow' },
  ]);
  it('joins an argv array with single spaces', () => {
    check(
      decide(policy, {
        mode: 'bypass',
        origin: 'model',
        toolName: 'bash',
        toolInput: { argv: ['rm', '-rf', '/'] },
      }),
      refused('no rm'),
    );
  });
  it('under bypass a path with no text is a grant', () => {
    check(
      decide(policy, {
        mode: 'bypass',
        origin: 'model',
        toolName: 'bash',
        toolInput: { argv: 'rm -rf /x' },
      }),
      refused('no rm'),
    );
    check(
      decide(policy, {
        mode: 'bypass',
        origin: 'model',
        toolName: 'bash',
        toolInput: { argv: { a: 1 } },
      }),
      granted('mode'),
    );
  });
  it('a path without match matches when there is text', () => {
    check(
      decide(policy, {
        mode: 'rules',
        origin: 'model',
        toolName: 'edit',
        toolInput: { edits: [{ path: 'a.ts' }] },
      }),
      granted('rule'),
    );
    check(
      decide(policy, {
        mode: 'rules',
        origin: 'model',
        toolName: 'edit',
        toolInput: { edits: [] },
      }),
      refused('no approval rule allows edit'),
    );
  });
  it('explains which text each matching rule read', () => {
    expect(
      explainMatches(policy, {
        mode: 'rules',
        origin: 'model',
        toolName: 'edit',
        toolInput: { edits: [{ path: 'x/.env' }] },
      }),
    ).toEqual([
      { index: 1, verdict: 'deny', text: 'x/.env' },
      { index: 2, verdict: 'allow', text: 'x/.env' },
    ]);
  });
  it('never throws on odd tool input', () => {
    for (const toolInput of [undefined, null, 1, 'text', [], { argv: [[1]] }]) {
      expect(() =>
        decide(policy, { mode: 'rules', origin: 'model', toolName: 'bash', toolInput }),
      ).not.toThrow();
    }
  });
});

describe('declared tool_names', () => {
  const rules = [
    { tool: '*', verdict: 'allow' },
    { tool: 'deploy', verdict: 'deny', reason: 'never deploy' },
    { tool: 'deploy', verdict: 'ask', origin: 'author' },
  ];
  const listed = validateRuleList(rules, { toolNames: ['bash', 'read', 'edit__0123456789ab'] });
  if (!listed.ok) throw new Error('test policy is invalid');
  const call = (toolName: string, origin: Origin = 'model', mode: ApprovalMode = 'bypass') =>
    decide(listed.value, { mode, origin, toolName, toolInput: {} });

  it('refuses a model call to a tool outside them, under every mode', () => {
    for (const mode of ['bypass', 'ask', 'rules'] as ApprovalMode[]) {
      check(call('write', 'model', mode), refused("write is not among this run's tool_names"));
    }
    expect(call('write').matched).toEqual([0]);
  });
  it('grants listed tools, by resolved or by wire name', () => {
    check(call('bash__0123456789ab'), granted('mode'));
    check(call('edit__0123456789ab'), granted('mode'));
  });
  it("lets a deny rule's reason win over the tool_names refusal", () => {
    check(call('deploy'), refused('never deploy'));
  });
  it('leaves author and kernel rows to their origin rules', () => {
    check(call('write', 'author'), granted('origin'));
    check(call('deploy', 'author'), parks);
    check(call('write', 'kernel'), granted('origin'));
  });
  it("comes from a profile's tool_names", () => {
    const profile = validateProfileConfiguration({ approval_mode: 'bypass', tool_names: ['bash'] });
    if (!profile.ok) throw new Error('test profile is invalid');
    const decision = decide(profile.value.policy, {
      mode: 'bypass',
      origin: 'model',
      toolName: 'rm',
      toolInput: {},
    });
    check(decision, refused("rm is not among this run's tool_names"));
  });

  it('reads only own properties of the input, however it is built', () => {
    const policy = policyOf([
      { tool: 'bash', path: 'command', match: '*rm -rf /*', verdict: 'deny' },
      { tool: 'bash', path: 'command', match: '*', verdict: 'allow' },
      { tool: 'bash', path: 'argv', match: 'rm *', verdict: 'deny' },
    ]);
    const inherited = Object.create({ command: 'rm -rf /', argv: ['rm', '-rf', '/'] });
    const call = { mode: 'rules', origin: 'model', toolName: 'bash' } as const;
    expect(decide(policy, { ...call, toolInput: inherited }).outcome).toBe('denied');
    expect(decide(policy, { ...call, toolInput: inherited }).matched).toEqual([]);
    expect(decide(policy, { ...call, toolInput: { command: 'rm -rf /' } }).matched).toEqual([0, 1]);
    expect(decide(policy, { ...call, toolInput: { argv: ['rm', '-rf', '/'] } }).matched).toEqual([
      2,
    ]);
  });
});
