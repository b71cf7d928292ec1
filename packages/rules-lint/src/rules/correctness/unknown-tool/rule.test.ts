import { fileURLToPath } from 'node:url';
import { decide, validateProfileConfiguration } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { lintFixture, lintWith } from '../../testing.js';
import { unknownTool } from './rule.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

describe('unknown-tool', () => {
  it('reports each alternative that matches no known tool, with a suggestion', () => {
    const findings = lintFixture(unknownTool, folder, 'bad.json');
    expect(findings.map((finding) => finding.pointer)).toEqual([
      '/approval_rules/0/tool',
      '/approval_rules/1/tool',
      '/approval_rules/2/tool',
      '/approval_rules/3/tool',
    ]);
    expect(findings[0]?.message).toContain('Did you mean "bash"?');
    expect(findings[1]?.message).toContain('"browser_*"');
    expect(findings[2]?.message).toContain('names an alias of "bash"');
    expect(findings[2]?.message).toContain('never grants');
  });

  it('lets a deny or ask name an alias, which binds a call made by that name', () => {
    const profile = {
      tool_names: ['bash', 'shell'],
      tool_aliases: { shell: 'bash' },
      approval_rules: [
        { tool: 'shell', verdict: 'deny', reason: 'not by that name' },
        { tool: 'sh*', verdict: 'ask' },
        { tool: 'sh*', verdict: 'allow' },
      ],
    };
    const findings = lintWith(unknownTool, JSON.stringify(profile));
    expect(findings.map((finding) => finding.pointer)).toEqual(['/approval_rules/2/tool']);
    expect(findings[0]?.message).toContain('an allow grants by the resolved name only');
  });

  it('knows names from tool_names, the --tools catalog and globs', () => {
    expect(lintFixture(unknownTool, folder, 'good.json')).toEqual([]);
  });

  it('warns (not errors) on a deny for a namespace glob the catalog does not know yet', () => {
    const profile = {
      tool_names: ['bash'],
      approval_rules: [
        { tool: 'mcp__gitlab__*', verdict: 'deny', reason: 'not yet' },
        { tool: 'mcp__gitlab__*', verdict: 'allow' },
        { tool: 'bsah', verdict: 'deny', reason: 'a typo in a deny is still an error' },
      ],
    };
    const findings = lintWith(unknownTool, JSON.stringify(profile));
    expect(findings.map((finding) => [finding.pointer, finding.severity])).toEqual([
      ['/approval_rules/0/tool', 'warning'],
      ['/approval_rules/1/tool', 'error'],
      ['/approval_rules/2/tool', 'error'],
    ]);
  });

  it('is silent when no tool is known', () => {
    expect(lintWith(unknownTool, '[{"tool": "anything", "verdict": "allow"}]')).toEqual([]);
  });

  it('counts lifecycle hook tools as known', () => {
    const profile = {
      approval_mode: 'ask',
      tool_names: ['bash'],
      lifecycle_hooks: { stop: { tool: 'review_answer', timeout_ms: 1000, max_continuations: 1 } },
      approval_rules: [{ tool: 'review_answer', verdict: 'ask', origin: 'kernel' }],
    };
    expect(lintWith(unknownTool, JSON.stringify(profile))).toEqual([]);
  });
  it('reports a model allow or ask for a tool outside tool_names, which the kernel refuses first', () => {
    const profile = {
      approval_mode: 'rules',
      tool_names: ['bash', 'shell'],
      tool_aliases: { shell: 'bash' },
      approval_rules: [
        { tool: 'memory_read', verdict: 'allow' },
        { tool: 'memory_read|bash', verdict: 'ask' },
        { tool: 'mcp__x__*', verdict: 'ask' },
        { tool: 'shell', verdict: 'ask' },
        { tool: 'memory_read', verdict: 'deny', reason: 'its own reason' },
        { tool: 'memory_read', verdict: 'allow', origin: 'author' },
        { tool: 'b*', verdict: 'allow' },
      ],
    };
    const tools = ['bash', 'memory_read', 'mcp__x__search'];
    const findings = lintWith(unknownTool, JSON.stringify(profile), { tools });
    expect(findings.map((finding) => [finding.pointer, finding.severity])).toEqual([
      ['/approval_rules/0/tool', 'error'],
      ['/approval_rules/1/tool', 'error'],
      ['/approval_rules/2/tool', 'error'],
    ]);
    expect(findings[0]?.message).toContain("not among the profile's tool_names");
    expect(findings[1]?.message).toContain('tool "memory_read"');
    // The kernel's own evaluator agrees: the rule it reports never decides a model's call.
    const allowsAndAsks = profile.approval_rules.filter((rule) => rule.verdict !== 'deny');
    const validated = validateProfileConfiguration({ ...profile, approval_rules: allowsAndAsks });
    if (!validated.ok) throw new Error('the profile is valid');
    for (const toolName of ['memory_read', 'mcp__x__search']) {
      const decision = decide(validated.value.policy, {
        mode: 'rules',
        origin: 'model',
        toolName,
        toolInput: {},
      });
      expect(decision.error?.detail).toBe(`${toolName} is not among this run's tool_names`);
    }
  });
});

describe('unknown-tool and a profile tool_manifest', () => {
  const manifest = [
    { name: 'Read', input_schema: { type: 'object' }, risk_traits: ['read'] },
    { name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] },
  ];

  it('knows the manifest tools, so a typo in an approval rule is reported', () => {
    const profile = {
      approval_mode: 'ask',
      tool_manifest: manifest,
      approval_rules: [
        { tool: 'Reed', verdict: 'allow' },
        { tool: 'Read|Bash', verdict: 'allow' },
      ],
    };
    const findings = lintWith(unknownTool, JSON.stringify(profile, null, 2));
    expect(findings.map((finding) => finding.pointer)).toEqual(['/approval_rules/0/tool']);
    expect(findings[0]?.message).toContain('Did you mean "Read"?');
  });

  it('reports a permission rule whose tools or tool_names name no known tool', () => {
    const profile = {
      tool_manifest: manifest,
      permission_rule_set: 'team',
      custom_rule_sets: [
        {
          id: 'team',
          rules: [
            { verdict: 'allow', tools: ['Reed', 'Ba*'] },
            { verdict: 'ask', tool_names: ['bash'] },
            { verdict: 'deny', tools: ['mcp__gitlab__*'], reason: 'not yet' },
            { verdict: 'allow', tools: ['*'], tool_names: ['Bash'] },
          ],
        },
      ],
    };
    const findings = lintWith(unknownTool, JSON.stringify(profile, null, 2));
    expect(findings.map((finding) => [finding.pointer, finding.severity])).toEqual([
      ['/custom_rule_sets/0/rules/0/tools/0', 'error'],
      ['/custom_rule_sets/0/rules/1/tool_names/0', 'error'],
      ['/custom_rule_sets/0/rules/2/tools/0', 'warning'],
    ]);
    expect(findings[0]?.message).toContain('Did you mean "Read"?');
    expect(findings[1]?.message).toContain('Did you mean "Bash"?');
  });

  it('is silent on permission rules when no tool is known', () => {
    const profile = {
      permission_rule_set: 'team',
      custom_rule_sets: [{ id: 'team', rules: [{ verdict: 'allow', tools: ['Reed'] }] }],
    };
    expect(lintWith(unknownTool, JSON.stringify(profile))).toEqual([]);
  });
});
