import { describe, expect, it } from 'vitest';
import type { OverlayDocument, PermissionRule } from '../schemas/permissions.js';
import {
  type ActiveOverlays,
  evaluateGuardrails,
  evaluatePermissions,
} from './evaluate-permissions.js';
import { FIXTURE_MANIFEST } from './fixtures/manifest.js';
import { withRememberedRule } from './overlay-document.js';

function decide(options: {
  ruleSetId?: string;
  toolName?: string;
  input?: unknown;
  overlays?: ActiveOverlays;
  customRuleSets?: unknown[];
  approvalMode?: 'bypass' | 'ask' | 'rules';
}) {
  return evaluatePermissions({
    toolName: options.toolName ?? 't_write',
    input: options.input ?? { path: 'src/a.ts' },
    manifest: FIXTURE_MANIFEST,
    projectRoot: '/repo',
    ruleSetId: options.ruleSetId ?? 'read_only',
    customRuleSets: options.customRuleSets,
    approvalMode: options.approvalMode ?? 'bypass',
    overlays: options.overlays ?? {},
  });
}

const group = (ruleSetId: string, ...rules: PermissionRule[]): OverlayDocument => [
  { ruleSetId, rules },
];
const allowSrcWrites: PermissionRule = { verdict: 'allow', risks: ['write'], targets: ['src/**'] };

describe('overlays', () => {
  it('a conversation overlay allowing src/** writes grants inside and not outside', () => {
    const overlays = { conversation: group('read_only', allowSrcWrites) };
    expect(decide({ overlays })).toMatchObject({
      verdict: 'allow',
      scope: 'conversation',
      group: 0,
      index: 0,
    });
    const outside = decide({ overlays, input: { path: '../etc/passwd' } });
    expect(outside.verdict).toBe('deny');
    expect(decide({ overlays, input: { path: 'lib/a.ts' } }).verdict).toBe('deny');
  });

  it('a group binds to one rule set: a planning grant does not reach supervised', () => {
    const overlays = { conversation: group('planning', allowSrcWrites) };
    expect(decide({ ruleSetId: 'supervised', overlays }).verdict).toBe('ask');
    expect(decide({ ruleSetId: 'planning', overlays }).verdict).toBe('allow');
  });

  it('conversation replaces project, which replaces ordinary user rules', () => {
    const user = group('supervised', { verdict: 'deny', risks: ['write'], reason: 'user says no' });
    const project = group('supervised', { verdict: 'allow', risks: ['write'] });
    const conversation = group('supervised', {
      verdict: 'ask',
      risks: ['write'],
      reason: 'conversation asks',
    });
    expect(decide({ ruleSetId: 'supervised', overlays: { user } })).toMatchObject({
      verdict: 'deny',
      scope: 'user',
      detail: 'user says no',
    });
    expect(decide({ ruleSetId: 'supervised', overlays: { user, project } })).toMatchObject({
      verdict: 'allow',
      scope: 'project',
    });
    expect(
      decide({ ruleSetId: 'supervised', overlays: { user, project, conversation } }),
    ).toMatchObject({ verdict: 'ask', scope: 'conversation', detail: 'conversation asks' });
  });

  it('a user guardrail is never overridden, not even by a conversation allow', () => {
    const user = group('autonomous', {
      verdict: 'deny',
      guardrail: true,
      tools: ['t_delete'],
      reason: 'never delete',
    });
    const conversation = group('autonomous', { verdict: 'allow', tools: ['t_delete'] });
    expect(
      decide({ ruleSetId: 'autonomous', toolName: 't_delete', overlays: { user, conversation } }),
    ).toMatchObject({ verdict: 'deny', scope: 'user', detail: 'never delete' });
    // A guardrail that asks still loses to a stricter rule-set deny.
    const asks = group('read_only', { verdict: 'ask', guardrail: true, tools: ['t_delete'] });
    expect(decide({ toolName: 't_delete', overlays: { user: asks } })).toMatchObject({
      verdict: 'deny',
      scope: 'rule_set',
    });
  });

  it("every member's guardrail binds whatever set the run selected, and on a fallback", () => {
    const filed = group('planning', {
      verdict: 'deny',
      guardrail: true,
      targets: ['src/prod/**'],
      reason: 'not production',
    });
    const guardrails = [{ owner: 'member:m2', document: filed }];
    const call = { input: { path: 'src/prod/db.ts' }, overlays: { guardrails } };
    for (const ruleSetId of ['autonomous', 'supervised', 'missing-set']) {
      expect(decide({ ...call, ruleSetId })).toMatchObject({
        verdict: 'deny',
        scope: 'user',
        owner: 'member:m2',
        detail: 'not production',
      });
    }
    // An ask guardrail and a deny guardrail of two members: the deny binds.
    const asks = group('autonomous', { verdict: 'ask', guardrail: true, risks: ['write'] });
    expect(
      decide({
        ruleSetId: 'autonomous',
        input: { path: 'src/prod/db.ts' },
        overlays: { guardrails: [{ owner: 'member:m1', document: asks }, ...guardrails] },
      }),
    ).toMatchObject({ verdict: 'deny', owner: 'member:m2' });
    // Ordinary rules of a member's document do not travel with its guardrails.
    const grant = group('autonomous', { verdict: 'deny', tools: ['t_write'] });
    expect(
      decide({
        ruleSetId: 'autonomous',
        overlays: { guardrails: [{ owner: 'member:m1', document: grant }] },
      }),
    ).toMatchObject({ verdict: 'allow', scope: 'rule_set' });
    expect(
      evaluateGuardrails({
        toolName: 't_write',
        input: { path: 'src/prod/x.ts' },
        manifest: FIXTURE_MANIFEST,
        projectRoot: '/repo',
        guardrails,
      }),
    ).toMatchObject({ verdict: 'deny', ruleSet: { id: 'none' } });
  });

  it("a guardrail's refusal without a reason does not tell the model whose credential keeps it", () => {
    const bare = group('autonomous', { verdict: 'deny', guardrail: true, risks: ['write'] });
    const refused = decide({
      ruleSetId: 'autonomous',
      overlays: { guardrails: [{ owner: 'member:cred_4f2a', document: bare }] },
    });
    expect(refused).toMatchObject({ verdict: 'deny', owner: 'member:cred_4f2a' });
    expect(refused.detail).toBe(
      "denied by a workspace guardrail (rule 0 of group 0 of an admin's user overlay), which no overlay or rule set lifts",
    );
    // An ask is read by a person, who may want to know whose rule it is.
    const asks = group('autonomous', { verdict: 'ask', guardrail: true, risks: ['write'] });
    expect(
      decide({
        ruleSetId: 'autonomous',
        overlays: { guardrails: [{ owner: 'member:cred_4f2a', document: asks }] },
      }).detail,
    ).toContain('member:cred_4f2a');
  });

  it('overlays cannot lift Baseline: an unavailable tool stays refused', () => {
    const conversation = group('autonomous', { verdict: 'allow', tools: ['retired'] });
    expect(
      decide({ ruleSetId: 'autonomous', toolName: 'retired', overlays: { conversation } }),
    ).toMatchObject({ verdict: 'deny', scope: 'baseline' });
  });

  it('rules match groups, exact arguments, argument globs and URL globs', () => {
    const rules: PermissionRule[] = [
      { verdict: 'allow', groups: ['editors'] },
      { verdict: 'allow', tools: ['t_execute'], arguments: { '/command': 'make test' } },
      { verdict: 'allow', tools: ['t_execute'], argument_patterns: { '/command': 'git status*' } },
      { verdict: 'allow', urls: ['https://docs.example.com/*'] },
    ];
    const overlays = { conversation: group('supervised', ...rules) };
    const run = (toolName: string, input: unknown) =>
      decide({ ruleSetId: 'supervised', toolName, input, overlays }).verdict;
    expect(run('multi_edit', { edits: [{ path: 'a' }] })).toBe('allow');
    expect(run('t_execute', { command: 'make test' })).toBe('allow');
    expect(run('t_execute', { command: 'make deploy' })).toBe('ask');
    expect(run('t_execute', { command: 'git status --short' })).toBe('allow');
    expect(run('fetch', { url: 'HTTPS://DOCS.example.com:443/a/../guide' })).toBe('allow');
    expect(run('fetch', { url: 'https://evil.example.com/' })).toBe('ask');
  });
});

describe('multi-target calls', () => {
  const overlays = { conversation: group('supervised', allowSrcWrites) };
  const edits = (...paths: string[]) => ({ edits: paths.map((path) => ({ path })) });

  it('are allowed only when the winning allow rule covers every target', () => {
    const all = decide({
      ruleSetId: 'supervised',
      toolName: 'multi_edit',
      input: edits('src/a.ts', './src/b/../c.ts'),
      overlays,
    });
    expect(all).toMatchObject({ verdict: 'allow', scope: 'conversation' });
    expect(all.targets.map((t) => t.text)).toEqual(['src/a.ts', 'src/c.ts']);
    const partly = decide({
      ruleSetId: 'supervised',
      toolName: 'multi_edit',
      input: edits('src/a.ts', 'package.json'),
      overlays,
    });
    // The partly covering allow does not win: the next verdict (the set's ask) applies.
    expect(partly).toMatchObject({ verdict: 'ask', scope: 'rule_set' });
  });

  it('a deny with targets applies when it names any one target', () => {
    const deny = group('autonomous', { verdict: 'deny', targets: ['secrets/**'] });
    expect(
      decide({
        ruleSetId: 'autonomous',
        toolName: 'multi_edit',
        input: edits('src/a.ts', 'secrets/key'),
        overlays: { conversation: deny },
      }),
    ).toMatchObject({ verdict: 'deny', scope: 'conversation' });
  });
});

describe('a target that is the directory a pattern guards', () => {
  const deny = group(
    'autonomous',
    { verdict: 'deny', targets: ['secrets/**'], reason: 'secrets stay put' },
    { verdict: 'ask', targets: ['config/*'] },
  );
  const onPath = (path: string) =>
    decide({ ruleSetId: 'autonomous', input: { path }, overlays: { conversation: deny } });

  it('a deny or ask of everything in it binds a call on the directory itself', () => {
    for (const path of ['secrets', 'secrets/', './secrets', '/repo/secrets', 'src/../secrets']) {
      expect(onPath(path), path).toMatchObject({ verdict: 'deny', detail: 'secrets stay put' });
    }
    expect(onPath('config')).toMatchObject({ verdict: 'ask', scope: 'conversation' });
    // Siblings and names that merely begin alike are not the directory.
    expect(onPath('secretsx').verdict).toBe('allow');
    expect(onPath('src/secrets').verdict).toBe('allow');
  });

  it('a guardrail binds removing a directory that holds every path it guards', () => {
    const guardrails = [
      {
        owner: 'member:admin',
        document: group('autonomous', {
          verdict: 'deny',
          guardrail: true,
          targets: ['config/secrets/**/*.key'],
        }),
      },
    ];
    const removing = (toolName: string, path: string) =>
      decide({ ruleSetId: 'autonomous', toolName, input: { path }, overlays: { guardrails } })
        .verdict;
    for (const path of ['.', 'config', 'config/', 'config/secrets', '/repo', '/', '/repo/..']) {
      expect(removing('t_delete', path), path).toBe('deny');
      expect(removing('t_destructive', path), path).toBe('deny');
      // Reading it may read what is under it (a search, a listing): a person decides.
      expect(removing('t_read', path), path).toBe('ask');
    }
    // A sibling, or a directory inside the guarded one, holds only part of it or none.
    expect(removing('t_delete', 'conf')).toBe('allow');
    expect(removing('t_delete', 'config/other')).toBe('allow');
    expect(removing('t_delete', 'config/secrets/a/b.txt')).toBe('allow');
    expect(removing('t_delete', 'config/secrets/a/b.key')).toBe('deny');
    // Outside the project and not above it: Baseline asks, the guardrail does not refuse.
    expect(removing('t_delete', '/repository')).toBe('ask');
    expect(removing('t_delete', '/etc')).toBe('ask');
  });

  it('an allow of everything in a directory does not cover the directory itself', () => {
    const allowed = group('supervised', { verdict: 'allow', targets: ['src/**'] });
    const decided = (path: string) =>
      decide({ ruleSetId: 'supervised', input: { path }, overlays: { conversation: allowed } });
    expect(decided('src/a.ts')).toMatchObject({ verdict: 'allow', scope: 'conversation' });
    expect(decided('src')).toMatchObject({ verdict: 'ask', scope: 'rule_set' });
  });
});

describe('custom rule sets and fallback', () => {
  const custom = {
    id: 'coding',
    version: '7',
    modes: ['bypass'],
    rules: [
      { verdict: 'allow', risks: ['read', 'write'], targets: ['src/**'] },
      { verdict: 'deny', reason: 'coding: only src' },
    ],
  };

  it('a custom set decides in order and reports its version', () => {
    expect(decide({ ruleSetId: 'coding', customRuleSets: [custom] })).toMatchObject({
      verdict: 'allow',
      ruleSet: { id: 'coding', version: '7' },
      scope: 'rule_set',
      index: 0,
      fallback: null,
    });
    expect(
      decide({ ruleSetId: 'coding', customRuleSets: [custom], input: { path: 'x' } }),
    ).toMatchObject({ verdict: 'deny', detail: 'coding: only src' });
  });

  it.each([
    ['missing', [], 'bypass'],
    ['malformed', [{ id: 'coding', rules: [{ verdict: 'maybe' }] }], 'bypass'],
    ['malformed', [{ id: 'coding', rules: [{ verdict: 'allow', targets: ['/abs'] }] }], 'bypass'],
    ['disabled', [{ ...custom, disabled: true }], 'bypass'],
    ['incompatible', [custom], 'rules'],
  ] as const)('falls back to Baseline without overlays when %s', (reason, sets, mode) => {
    const overlays = { conversation: group('coding', { verdict: 'allow' as const }) };
    const outcome = decide({
      ruleSetId: 'coding',
      customRuleSets: [...sets],
      approvalMode: mode,
      overlays,
    });
    expect(outcome.fallback?.reason).toBe(reason);
    // The conversation overlay would allow; Baseline alone asks a person.
    expect(outcome).toMatchObject({ verdict: 'ask', scope: 'baseline' });
    expect(outcome.ruleSet.id).toBe('coding');
  });

  it('Baseline still refuses an unavailable tool after a fallback', () => {
    expect(decide({ ruleSetId: 'gone', toolName: 'retired' })).toMatchObject({
      verdict: 'deny',
      scope: 'baseline',
      fallback: { reason: 'missing' },
    });
  });
});

describe('remembered rules', () => {
  it('append to the group of the captured set, or open one', () => {
    const document = group('planning', allowSrcWrites);
    const rule = { tools: ['t_execute'], arguments: { '/command': 'ls' } };
    expect(withRememberedRule(document, 'planning', rule)).toEqual([
      { ruleSetId: 'planning', rules: [allowSrcWrites, { verdict: 'allow', ...rule }] },
    ]);
    const opened = withRememberedRule(document, 'supervised', rule);
    expect(opened).toHaveLength(2);
    expect(opened[1]).toEqual({ ruleSetId: 'supervised', rules: [{ verdict: 'allow', ...rule }] });
    expect(document).toHaveLength(1);
  });
});
