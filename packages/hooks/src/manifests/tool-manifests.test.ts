import { evaluatePermissions } from '@airlock/core';
import { describe, expect, it } from 'vitest';
import { TOOL_MANIFESTS } from './tool-manifests.js';

describe("Codex's apply_patch", () => {
  const underRules = (rules: unknown[]) =>
    evaluatePermissions({
      toolName: 'apply_patch',
      input: { input: '*** Begin Patch\n*** Delete File: src/a.ts\n*** End Patch' },
      manifest: TOOL_MANIFESTS.codex,
      projectRoot: '/repo',
      ruleSetId: 'no-deletes',
      customRuleSets: [{ id: 'no-deletes', rules }],
      approvalMode: 'rules',
      overlays: {},
    }).verdict;

  it('is a delete as well as a write, since a patch can delete files', () => {
    expect(underRules([{ verdict: 'deny', risks: ['delete'] }, { verdict: 'allow' }])).toBe('deny');
    expect(underRules([{ verdict: 'ask', risks: ['write'] }, { verdict: 'allow' }])).toBe('ask');
  });
});
