import { fileURLToPath } from 'node:url';
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
    expect(findings[2]?.message).toContain('is an alias of "bash"');
  });

  it('knows names from tool_names, the --tools catalog and globs', () => {
    expect(lintFixture(unknownTool, folder, 'good.json')).toEqual([]);
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
});
