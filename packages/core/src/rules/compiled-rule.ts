import type { Glob } from '../glob/byte-glob.js';
import type { ApprovalRule, Origin, Verdict } from '../schemas/approval.js';
import type { ToolPattern } from './tool-pattern.js';

/** A validated rule with its globs compiled and its path split, ready to evaluate. */
export interface CompiledRule {
  readonly index: number;
  readonly rule: ApprovalRule;
  readonly verdict: Verdict;
  readonly origin: Origin;
  readonly tool: ToolPattern;
  /** The path's segments, or null when the rule reads the tool as a whole. */
  readonly path: readonly string[] | null;
  /** The glob over the text at the path, or null when any text matches. */
  readonly match: Glob | null;
}
