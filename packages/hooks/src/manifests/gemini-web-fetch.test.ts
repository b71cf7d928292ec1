import { evaluatePermissions, type PermissionRule } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { TOOL_MANIFESTS } from './tool-manifests.js';

const denyInternal: PermissionRule = { verdict: 'deny', urls: ['https://internal.example.com/*'] };

function decide(prompt: string, rule: PermissionRule) {
  return evaluatePermissions({
    toolName: 'web_fetch',
    input: { prompt },
    manifest: TOOL_MANIFESTS.gemini,
    projectRoot: '/repo',
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules: [rule] }] },
  }).verdict;
}

describe("Gemini CLI's web_fetch meets the URL rules over every URL its prompt holds", () => {
  it.each([
    'Summarize https://internal.example.com/report',
    'Compare https://example.org/a with\nhttps://internal.example.com/b.',
    'Read HTTPS://INTERNAL.EXAMPLE.COM/x please',
    'see https://user:pw@internal.example.com./x',
  ])('refuses %j under a deny of https://internal.example.com/*', (prompt) => {
    expect(decide(prompt, denyInternal)).toBe('deny');
  });

  it('grants a prompt whose URLs no rule names', () => {
    expect(decide('Summarize https://example.org/internal.example.com', denyInternal)).toBe(
      'allow',
    );
  });

  it('lets an allow over docs.example.com grant its pages alone', () => {
    const underAllow = (prompt: string) =>
      evaluatePermissions({
        toolName: 'web_fetch',
        input: { prompt },
        manifest: TOOL_MANIFESTS.gemini,
        projectRoot: '/repo',
        ruleSetId: 'docs-only',
        customRuleSets: [
          { id: 'docs-only', rules: [{ verdict: 'allow', urls: ['https://docs.example.com/*'] }] },
        ],
        approvalMode: 'rules',
        overlays: {},
      }).verdict;
    expect(underAllow('Summarize https://docs.example.com/a')).toBe('allow');
    expect(underAllow('Summarize https://docs.example.com/a and https://evil.test/b')).toBe('ask');
  });
});
