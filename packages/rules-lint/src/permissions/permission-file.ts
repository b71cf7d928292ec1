import { type OverlayScope, validateCustomRuleSet, validateOverlayDocument } from '@airlock/core';
import type { RuleSetting } from '../config/lint-config.js';
import { compareFindings, type Finding } from '../findings.js';
import { type DeclarationProblem, policyTextProblems } from '../policy-text.js';
import { locatePointer, type SourceDocument } from '../source/document.js';
import {
  PERMISSION_CHAINS_CODE,
  type PermissionRuleList,
  permissionChainReports,
} from './permission-chains.js';

/** A spec 003 file `check` reads: an overlay document or one custom rule set. */
export type PermissionFileKind = 'overlay' | 'custom-rule-set';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * What kind of permission file a value is, or null for an approval rule file:
 * a non-empty array of objects with `ruleSetId` is an overlay document; an
 * object with `id` and `rules` (and no `approval_rules`) is a custom rule set.
 */
export function permissionFileKind(value: unknown): PermissionFileKind | null {
  if (Array.isArray(value)) {
    const groups = value.length > 0 && value.every((item) => isObject(item) && 'ruleSetId' in item);
    return groups ? 'overlay' : null;
  }
  if (isObject(value) && 'id' in value && 'rules' in value && !('approval_rules' in value)) {
    return 'custom-rule-set';
  }
  return null;
}

/**
 * The overlay scope a file is checked as: a repository's
 * `.airlock/permissions.json` is a project document (no guardrails);
 * anything else is checked as a user document, the most permissive.
 */
export function overlayScopeOf(fileName: string): OverlayScope {
  return fileName.replaceAll('\\', '/').endsWith('.airlock/permissions.json') ? 'project' : 'user';
}

function findingsOf(document: SourceDocument, problems: readonly DeclarationProblem[]): Finding[] {
  return problems
    .map((problem) => ({
      code: problem.code,
      source: 'declaration' as const,
      severity: 'error' as const,
      message: problem.message,
      pointer: problem.pointer,
      location: locatePointer(document, problem.pointer),
    }))
    .sort(compareFindings);
}

/**
 * Declaration findings of an overlay document or a custom rule set, with
 * positions: the kernel's policy-text check, then core's validator.
 */
export function permissionFindings(
  document: SourceDocument,
  kind: PermissionFileKind,
  scope: OverlayScope = overlayScopeOf(document.fileName),
): Finding[] {
  const validated =
    kind === 'overlay'
      ? validateOverlayDocument(document.value, scope)
      : validateCustomRuleSet(document.value);
  return findingsOf(document, [
    ...policyTextProblems(document.value),
    ...(validated.ok ? [] : validated.problems),
  ]);
}

/**
 * Findings for a profile's `custom_rule_sets`: the kernel accepts any object
 * with an id there and falls back to Baseline when a malformed one is
 * selected, so the linter is where such a set is caught early.
 */
export function customRuleSetFindings(document: SourceDocument): Finding[] {
  const sets = isObject(document.value) ? document.value.custom_rule_sets : undefined;
  if (!Array.isArray(sets)) return [];
  const problems = sets.flatMap((set, index) => {
    const validated = validateCustomRuleSet(set, `/custom_rule_sets/${index}`);
    return validated.ok ? [] : validated.problems;
  });
  return findingsOf(document, problems);
}

function rulesOf(value: unknown): readonly unknown[] {
  return isObject(value) && Array.isArray(value.rules) ? value.rules : [];
}

/**
 * The ordered permission rule lists of a file: an overlay document's groups
 * (each bound by the guardrails of the groups for the same rule set), a
 * custom rule set's rules, or a rule file's `custom_rule_sets`.
 */
export function permissionRuleLists(
  value: unknown,
  kind: PermissionFileKind | null,
): PermissionRuleList[] {
  if (kind === 'custom-rule-set') return [{ pointer: '/rules', rules: rulesOf(value) }];
  if (kind === 'overlay') {
    const groups = value as readonly Record<string, unknown>[];
    return groups.map((group, index) => ({
      pointer: `/${index}/rules`,
      rules: rulesOf(group),
      ...(typeof group.ruleSetId === 'string' ? { sequence: `ruleSetId:${group.ruleSetId}` } : {}),
      binding: groups
        .filter((other) => other.ruleSetId === group.ruleSetId)
        .flatMap((other) => rulesOf(other))
        .filter((rule) => isObject(rule) && rule.guardrail === true),
    }));
  }
  const sets = isObject(value) ? value.custom_rule_sets : undefined;
  if (!Array.isArray(sets)) return [];
  return sets.map((set, index) => ({
    pointer: `/custom_rule_sets/${index}/rules`,
    rules: rulesOf(set),
  }));
}

/**
 * `allow-grants-chains` for permission rules: an allow whose
 * `argument_patterns` on a shell command line also grant a second command.
 * Governed by the same setting as the approval rules' lint rule.
 */
export function permissionChainFindings(
  document: SourceDocument,
  kind: PermissionFileKind | null,
  setting: RuleSetting | undefined,
): Finding[] {
  if (setting === 'off') return [];
  return permissionChainReports(permissionRuleLists(document.value, kind)).map((report) => ({
    code: PERMISSION_CHAINS_CODE,
    source: 'lint' as const,
    severity: setting ?? 'warning',
    message: report.message,
    pointer: report.pointer,
    location: locatePointer(document, report.pointer),
  }));
}
