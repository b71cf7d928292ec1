import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';
import { permissionChainReports } from './permission-chains.js';

const allowStatus = {
  verdict: 'allow',
  tools: ['bash'],
  argument_patterns: { '/command': 'git status*' },
};
/** Asks for every way CHAINS lists of running a second command. */
const chainAsks = ['*;*', '*&*', '*|*', '*\n*', '*$(*', '*`*', '*<*', '*>*'].map((pattern) => ({
  verdict: 'ask',
  tools: ['bash'],
  argument_patterns: { '/command': pattern },
}));

const reportsOf = (rules: unknown[], binding?: unknown[]) =>
  permissionChainReports([{ pointer: '/rules', rules, ...(binding ? { binding } : {}) }]);

describe('allow-grants-chains on permission rules', () => {
  it('reports an allow whose pattern also grants a chained command, naming every way', () => {
    const [report, ...more] = reportsOf([allowStatus]);
    expect(more).toEqual([]);
    expect(report?.pointer).toBe('/rules/0/argument_patterns/~1command');
    expect(report?.message).toContain('"git status x; touch x"');
    expect(report?.message).toContain('`&&`');
    expect(report?.message).toContain('`>`');
  });

  it('is quiet when earlier asks catch every chain, and not when they come after the allow', () => {
    expect(reportsOf([...chainAsks, allowStatus])).toEqual([]);
    // The first matching rule decides a rule set: asks after the allow never see the line.
    expect(reportsOf([allowStatus, ...chainAsks])).toHaveLength(1);
    // Catching some ways only names the rest.
    const [partly] = reportsOf([chainAsks[0], allowStatus]);
    expect(partly?.message).not.toContain('`;`');
    expect(partly?.message).toContain('`&&`');
  });

  it('counts an earlier rule only when it selects the same tool', () => {
    const askOtherTool = chainAsks.map((rule) => ({ ...rule, tools: ['sh'] }));
    expect(reportsOf([...askOtherTool, allowStatus])).toHaveLength(1);
    const askEveryTool = chainAsks.map(({ tools: _tools, ...rule }) => rule);
    expect(reportsOf([...askEveryTool, allowStatus])).toEqual([]);
  });

  it('leaves exact commands, a lone star, argv fields and target rules alone', () => {
    const quiet = [
      { ...allowStatus, argument_patterns: { '/command': 'git status' } },
      { ...allowStatus, argument_patterns: { '/command': '*' } },
      { ...allowStatus, argument_patterns: { '/argv/0': 'git*' } },
      { ...allowStatus, targets: ['src/**'] },
      { ...allowStatus, verdict: 'ask' },
    ];
    expect(reportsOf(quiet)).toEqual([]);
  });

  it('lets a binding guardrail catch a chain whatever its position', () => {
    const guardrails = chainAsks.map((rule) => ({ ...rule, guardrail: true }));
    expect(reportsOf([allowStatus], guardrails)).toEqual([]);
  });

  it('reads a nested pointer and a rule selected by exact tool name', () => {
    const nested = {
      verdict: 'allow',
      tool_names: ['run'],
      argument_patterns: { '/spec/cmd': 'npm test*' },
    };
    const [report] = reportsOf([nested]);
    expect(report?.pointer).toBe('/rules/0/argument_patterns/~1spec~1cmd');
  });
});

describe('rules-lint check reports it in every permission file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rules-lint-permission-chains-'));
  const write = (name: string, value: unknown) =>
    writeFileSync(join(dir, name), JSON.stringify(value, null, 2));
  write('set.json', { id: 'coding', rules: [allowStatus] });
  write('overlay.json', [
    { ruleSetId: 'coding', rules: chainAsks.map((rule) => ({ ...rule, guardrail: true })) },
    { ruleSetId: 'coding', rules: [allowStatus] },
    { ruleSetId: 'read_only', rules: [allowStatus] },
  ]);
  write('profile.json', {
    approval_mode: 'bypass',
    approval_rules: [],
    custom_rule_sets: [{ id: 'coding', rules: [allowStatus] }],
  });

  const findings = async (file: string, ...args: string[]) => {
    const result = await runCaptured(['check', file, '--format', 'json', ...args], dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [report] = JSON.parse(result.stdout).files;
    return report.findings as { code: string; pointer: string; severity: string }[];
  };

  it('in a custom rule set file, an overlay document and a profile', async () => {
    expect(await findings('set.json')).toEqual([
      expect.objectContaining({
        code: 'allow-grants-chains',
        severity: 'warning',
        pointer: '/rules/0/argument_patterns/~1command',
      }),
    ]);
    // The guardrails bind the group for the same rule set only.
    expect((await findings('overlay.json')).map((finding) => finding.pointer)).toEqual([
      '/2/rules/0/argument_patterns/~1command',
    ]);
    expect(await findings('profile.json')).toEqual([
      expect.objectContaining({
        code: 'allow-grants-chains',
        pointer: '/custom_rule_sets/0/rules/0/argument_patterns/~1command',
      }),
    ]);
  });

  it('under the same config setting as the approval rules', async () => {
    writeFileSync(
      join(dir, 'rules-lint.config.json'),
      JSON.stringify({ rules: { 'allow-grants-chains': 'off' } }),
    );
    expect(await findings('set.json')).toEqual([]);
    expect(await findings('profile.json')).toEqual([]);
  });
});
