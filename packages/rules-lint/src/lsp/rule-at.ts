import { getLocation, type JSONPath, parse } from 'jsonc-parser';
import { type RuleFile, readRuleFile } from '../rule-file.js';

/** Where an offset sits in a rule file: in which rule (if any), and the JSON path there. */
export interface RulePosition {
  /** Index of the rule the offset is inside, or undefined outside every rule. */
  readonly ruleIndex: number | undefined;
  /** jsonc-parser's path to the offset (keys and array indices). */
  readonly path: JSONPath;
  /** True when the offset is on a property key (or where one may be typed). */
  readonly atKey: boolean;
  /** The key whose value the offset is in, when it is in one. */
  readonly key: string | undefined;
  /** True when the offset is at the profile's top level (a key of the configuration). */
  readonly topLevel: boolean;
}

/** Locates an offset in a rule file's text. */
export function ruleAt(text: string, offset: number, file: RuleFile): RulePosition {
  const location = getLocation(text, offset);
  const path = location.path;
  const base = file.kind === 'profile' ? 1 : 0;
  const inRules = file.kind === 'rule-list' || path[0] === 'approval_rules';
  const index = inRules ? path[base] : undefined;
  const last = path[path.length - 1];
  return {
    ruleIndex: typeof index === 'number' ? index : undefined,
    path,
    atKey: location.isAtPropertyKey,
    key: !location.isAtPropertyKey && typeof last === 'string' ? last : undefined,
    topLevel: file.kind === 'profile' && path.length === 1 && typeof path[0] === 'string',
  };
}

/** A rule file read from text being typed: the parsed value and the file it makes. */
export interface TolerantRead {
  readonly value: unknown;
  readonly file: RuleFile;
}

/**
 * How many texts' reads are kept: hover and completion ask again and again
 * about the one or two documents being worked on, and a large one takes
 * most of a second to read, on the thread that answers every request.
 */
const KEPT_READS = 2;
const recentReads: { text: string; read: TolerantRead }[] = [];

/**
 * Reads a rule file from text being typed: comments, trailing commas and
 * unfinished JSON are tolerated (what parses is kept), so hover and
 * completion work mid-edit. The same text gives the same read, shared:
 * callers must not change it.
 */
export function tolerantRuleFile(text: string): TolerantRead {
  const kept = recentReads.find((entry) => entry.text === text);
  if (kept) return kept.read;
  const value: unknown = parse(text, [], { allowTrailingComma: true, disallowComments: false });
  const read = { value, file: readRuleFile(value) };
  recentReads.push({ text, read });
  if (recentReads.length > KEPT_READS) recentReads.shift();
  return read;
}
