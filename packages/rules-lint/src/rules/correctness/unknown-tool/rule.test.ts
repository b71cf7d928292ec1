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
