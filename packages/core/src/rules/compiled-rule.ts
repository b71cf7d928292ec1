import type { Glob } from '../glob/byte-glob.js';
import { truncateUtf8 } from '../glob/utf8.js';
import type { ApprovalRule, Origin, Verdict } from '../schemas/approval.js';
import type { ToolPattern } from './tool-pattern.js';

/** A denial reason rides at most this many UTF-8 bytes. */
export const REASON_MAX_BYTES = 256;

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
  /** The error detail of a call this rule denies (its reason within REASON_MAX_BYTES, or a default), made once. */
  readonly denialDetail: string;
}

/** The error detail of a call a rule denies: its reason cut to REASON_MAX_BYTES, or a default naming the rule. */
export function denialDetailOf(index: number, reason: string | undefined): string {
  if (reason === undefined || reason === '') return `denied by approval rule ${index}`;
  return truncateUtf8(reason, REASON_MAX_BYTES);
}
