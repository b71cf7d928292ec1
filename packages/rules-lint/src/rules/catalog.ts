import { pathNeverText } from './correctness/path-never-text/rule.js';
import { permissionRuleShadowed } from './correctness/permission-rule-shadowed/rule.js';
import { ruleSetFallback } from './correctness/rule-set-fallback/rule.js';
import { shadowedAllow } from './correctness/shadowed-allow/rule.js';
import { shadowedAsk } from './correctness/shadowed-ask/rule.js';
import { targetsWithoutProjectRoot } from './correctness/targets-without-project-root/rule.js';
import { unknownTool } from './correctness/unknown-tool/rule.js';
import { workingDirectoryGlob } from './correctness/working-directory-glob/rule.js';
import { workingDirectoryRelative } from './correctness/working-directory-relative/rule.js';
import type { LintRule } from './lint-rule.js';
import { denyWithoutReason } from './style/deny-without-reason/rule.js';
import { reasonTooLong } from './style/reason-too-long/rule.js';
import { redundantRule } from './style/redundant-rule/rule.js';
import { allowGrantsChains } from './suspicious/allow-grants-chains/rule.js';
import { askNoopInAskMode } from './suspicious/ask-noop-in-ask-mode/rule.js';
import { fragmentWithoutStar } from './suspicious/fragment-without-star/rule.js';
import { literalPathMatch } from './suspicious/literal-path-match/rule.js';
import { originAllowNoop } from './suspicious/origin-allow-noop/rule.js';
import { suffixAnchoredFragment } from './suspicious/suffix-anchored-fragment/rule.js';
import { unreachableUnmatched } from './suspicious/unreachable-unmatched/rule.js';
import { workingDirectoryOutsideProject } from './suspicious/working-directory-outside-project/rule.js';
import { workingDirectoryResolved } from './suspicious/working-directory-resolved/rule.js';

/** Every lint rule, in catalog order (category, then id). */
export const LINT_RULES: readonly LintRule[] = [
  pathNeverText,
  permissionRuleShadowed,
  ruleSetFallback,
  shadowedAllow,
  shadowedAsk,
  targetsWithoutProjectRoot,
  unknownTool,
  workingDirectoryGlob,
  workingDirectoryRelative,
  allowGrantsChains,
  askNoopInAskMode,
  fragmentWithoutStar,
  literalPathMatch,
  originAllowNoop,
  suffixAnchoredFragment,
  unreachableUnmatched,
  workingDirectoryOutsideProject,
  workingDirectoryResolved,
  denyWithoutReason,
  reasonTooLong,
  redundantRule,
];

/** The lint rule with this id, if any. */
export function lintRuleById(id: string): LintRule | undefined {
  return LINT_RULES.find((rule) => rule.id === id);
}
